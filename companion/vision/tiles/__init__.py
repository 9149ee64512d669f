"""Tile recognition: find every face-up tile in a photo and name it.

    from companion.vision.tiles import TileRecognizer
    tiles = TileRecognizer().recognize(bgr_image)   # [Tile(tile="3p", box=(x1, y1, x2, y2), score=0.97), ...]

Two small ONNX networks (a tile-face detector and a crop classifier) run under
onnxruntime; `teach` adapts the classifier's head to a club's own tile set, and
`render_tile_face` draws tile faces for synthetic scenes.
"""

from companion.vision.tiles.codes import TILE_CODES, describe
from companion.vision.tiles.recognizer import Tile, TileRecognizer, read_image
from companion.vision.tiles.render import render_tile_face

__all__ = ["TILE_CODES", "Tile", "TileRecognizer", "describe", "read_image", "render_tile_face"]
