"""Mahjong table companion: the dice, the wall, the dealer and the scores for a real table."""

__version__ = "0.1.0"
