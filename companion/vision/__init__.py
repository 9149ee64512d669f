"""Vision: pure functions on numpy images (tiles, walls, dice, markers, calibration)."""
