"""The dice RNG: faces in 1..6, uniform (chi-square), and no modulo bias by construction."""

import random
from collections import Counter

import pytest
from dicebox.rng import DiceRng, Xorshift128, uniform

# chi-square critical value, 5 degrees of freedom, p = 0.001
CHI2_5DF_P001 = 20.515


def chi_square(counts, n, k=6):
    expected = n / k
    return sum((counts.get(face, 0) - expected) ** 2 / expected for face in range(1, k + 1))


def seeded_hardware(seed):
    return random.Random(seed).randbytes


def test_every_face_is_between_1_and_6_and_each_one_occurs():
    rng = DiceRng(seeded_hardware(1))
    faces = Counter(rng.face() for _ in range(6000))
    assert set(faces) == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_faces_are_uniform_by_a_chi_square_test(seed):
    rng = DiceRng(seeded_hardware(seed))
    n = 60_000
    counts = Counter(rng.face() for _ in range(n))
    assert chi_square(counts, n) < CHI2_5DF_P001


def test_pairs_of_consecutive_faces_are_uniform_too():
    # a generator can be uniform face by face and still correlate the two dice of a throw
    rng = DiceRng(seeded_hardware(4))
    n = 72_000
    pairs = Counter((rng.face() - 1) * 6 + rng.face() for _ in range(n))
    expected = n / 36
    chi2 = sum((pairs.get(i, 0) - expected) ** 2 / expected for i in range(1, 37))
    assert chi2 < 66.62  # 35 degrees of freedom, p = 0.001


def test_rejection_sampling_has_no_modulo_bias():
    # Every 8-bit value once: plain v % 6 would give faces 0-3 one value more (256 = 6*42 + 4).
    values = iter(range(256))
    counts = Counter()
    try:
        while True:
            counts[uniform(lambda: next(values), 6, bits=8)] += 1
    except StopIteration:
        pass
    assert counts == {face: 42 for face in range(6)}


def test_values_in_the_biased_tail_are_drawn_again():
    draws = iter([2**32 - 1, 2**32 - 4, 7])  # the first two are at or above 6 * floor(2**32 / 6)
    assert uniform(lambda: next(draws), 6) == 7 % 6


def test_different_hardware_seeds_give_different_sequences_and_stirring_changes_the_future():
    a, b = DiceRng(seeded_hardware(1)), DiceRng(seeded_hardware(2))
    assert [a.face() for _ in range(30)] != [b.face() for _ in range(30)]
    c, d = DiceRng(seeded_hardware(5)), DiceRng(seeded_hardware(5))
    c.stir(b"\x01")
    d.stir(b"\x02")
    assert [c.face() for _ in range(30)] != [d.face() for _ in range(30)]


def test_an_all_zero_seed_does_not_leave_the_generator_stuck():
    g = Xorshift128(bytes(16))
    assert len({g.next32() for _ in range(100)}) == 100
