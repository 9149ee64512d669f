"""The printed calibration markers: the one agreement between whoever prints them and the camera.

Four ArUco markers lie flat in the corners of the table, one per corner. The table frame is
defined by them, never by the camera: x runs from corner 0 to corner 1, y from corner 0 to
corner 3, both in centimetres, seen from above. A bumped camera only changes the image, not
this frame. The side of the table named "bottom" is the one from corner 3 to corner 2; which
player sits there is a setting (`vision.first_east_side`), see `companion.vision.geometry`.

    corner 0 (0, 0) ─────── top ─────── corner 1 (W, 0)
        │                                   │
       left                               right
        │                                   │
    corner 3 (0, H) ────── bottom ───── corner 2 (W, H)

Each marker's centre sits `MARKER_INSET_CM` in from both edges of its corner, turned so that its
own top edge faces the table's top side (as printed: id and arrow up).
"""

from __future__ import annotations

#: OpenCV's predefined dictionary (cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
DICTIONARY = "DICT_4X4_50"

#: marker id per table corner, clockwise seen from above from the top-left corner
CORNER_IDS: dict[str, int] = {"top_left": 0, "top_right": 1, "bottom_right": 2, "bottom_left": 3}

#: printed side length of the black square of each marker, centimetres
MARKER_SIZE_CM = 5.0

#: distance of each marker's centre from the two table edges at its corner, centimetres
MARKER_INSET_CM = 4.0

#: default table size (width, depth) in centimetres: a common square mahjong table
TABLE_SIZE_CM: tuple[float, float] = (80.0, 80.0)


def marker_centres(table_size: tuple[float, float] = TABLE_SIZE_CM) -> dict[int, tuple[float, float]]:
    """Where each marker's centre lies on the table, by marker id, in table centimetres."""
    w, h = table_size
    i = MARKER_INSET_CM
    at = {"top_left": (i, i), "top_right": (w - i, i), "bottom_right": (w - i, h - i), "bottom_left": (i, h - i)}
    return {CORNER_IDS[name]: xy for name, xy in at.items()}


def marker_corners(table_size: tuple[float, float] = TABLE_SIZE_CM) -> dict[int, list[tuple[float, float]]]:
    """The four corners of each marker in table centimetres, in OpenCV's order (TL, TR, BR, BL of the marker)."""
    half = MARKER_SIZE_CM / 2
    return {
        mid: [(x - half, y - half), (x + half, y - half), (x + half, y + half), (x - half, y + half)]
        for mid, (x, y) in marker_centres(table_size).items()
    }
