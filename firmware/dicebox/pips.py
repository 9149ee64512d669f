"""Which LED groups light a face.

The seven pips of a die are wired as four groups that always light together, so one die
needs four GPIO pins instead of seven (hardware_docs/dice-box.md):

    A . B       A = top-left + bottom-right     B = top-right + bottom-left
    D C D       C = centre                      D = middle-left + middle-right
    B . A
"""

A, B, C, D = 1, 2, 4, 8

#: face -> bit mask of the groups to light (0 = dark)
GROUPS = {0: 0, 1: C, 2: A, 3: A | C, 4: A | B, 5: A | B | C, 6: A | B | D}


def groups(face):
    """The four group levels (A, B, C, D) for a face 0..6."""
    m = GROUPS[face]
    return (bool(m & A), bool(m & B), bool(m & C), bool(m & D))


def pip_count(face):
    """How many LEDs the face lights (groups A, B, D light two each, C one)."""
    a, b, c, d = groups(face)
    return 2 * a + 2 * b + c + 2 * d
