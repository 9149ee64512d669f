"""Variant files: every built-in loads, house rules extend them, and errors name the field."""

import pytest

from companion.errors import VariantError
from companion.rules.variant import builtin_names, load_variant


def test_the_five_required_variants_are_built_in():
    assert {"classical", "german", "mcr", "riichi", "hongkong"} <= set(builtin_names())


def test_every_disagreement_in_rules_md_is_a_setting(tmp_path):
    # RULES.md "Where rule books disagree": counting end; sum vs second throw vs one throw; loose-tile placement;
    # kong box 16 vs 14; East on a draw; MCR dead wall; riichi repeat on tenpai vs win only.
    f = tmp_path / "club.toml"
    f.write_text(
        'extends = "classical"\nname = "club"\ntitle = "Club"\n'
        '[break]\ncount_from = "left"\n[dice]\nstacks_by = "last"\n'
        '[replacement]\nloose_top_at = 2\nloose_bottom_at = 1\n'
        '[dead_wall]\nstacks = 6\nside = "left"\n[rotation]\nkeep_on_draw = "never"\n'
    )
    v = load_variant(str(f))
    assert (v.break_.count_from, v.dice.stacks_by, v.dead_wall.stacks, v.rotation.keep_on_draw) == (
        "left", "last", 6, "never")
    assert v.settlement.east_factor == 2  # untouched settings come from the base
    m = tmp_path / "mcr14.toml"
    m.write_text('extends = "mcr"\nname = "mcr14"\ntitle = "MCR with a 14-tile dead wall"\n'
                 '[dead_wall]\nstacks = 7\n[replacement]\nsource = "dead_wall"\n')
    assert load_variant(str(m)).dead_wall.stacks == 7


def test_house_rules_in_the_data_dir_are_found_by_name(tmp_path):
    (tmp_path / "ours.toml").write_text('extends = "riichi"\nname = "ours"\ntitle = "Ours"\n[rotation]\nkeep_on_draw = "never"\n')
    assert load_variant("ours", [tmp_path]).rotation.keep_on_draw == "never"


@pytest.mark.parametrize(
    "body, expected",
    [
        ('[dead_wall]\nstacks = "seven"', ": dead_wall.stacks: Expected `int`"),
        ("[dead_wall]\nstack = 7", ": dead_wall: Object contains unknown field `stack`"),
        ('[break]\ncount_from = "middle"', ": break.count_from: Invalid enum value 'middle' (one of: left, right)"),
        ("[deal]\nfinal = [1, 1, 1, 1]", ": deal: E would be dealt 13 tiles, not 14"),
        ("[replacement]\nloose_top_at = 9", "loose tiles must lie on two different dead-wall stacks 1..7"),
        ('[settlement]\nmethod = "poker"', ": settlement.method: Invalid value 'poker' (one of: classical, mcr, riichi, hongkong, none)"),
        ("[tiles]\njokers = 3", ": tiles: 147 tiles cannot build four walls"),
        ("[dead_wall]\nkeep_size = true", 'dead_wall.keep_size goes with replacement.source "dead_wall"'),
    ],
)
def test_an_invalid_file_gets_a_clear_error_naming_the_field(tmp_path, body, expected):
    f = tmp_path / "bad.toml"
    f.write_text(f'extends = "classical"\nname = "bad"\ntitle = "Bad"\n{body}\n')
    with pytest.raises(VariantError) as e:
        load_variant(str(f))
    assert str(e.value).startswith(str(f))
    assert expected in str(e.value)


def test_unknown_variant_lists_the_known_ones():
    with pytest.raises(VariantError, match="classical.*riichi"):
        load_variant("nonsense")


def test_not_toml_and_circular_extends(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [")
    with pytest.raises(VariantError, match="not valid TOML"):
        load_variant(str(bad))
    loop = tmp_path / "loop.toml"
    loop.write_text(f'extends = "{loop}"\nname = "loop"\ntitle = "Loop"\n')
    with pytest.raises(VariantError, match="circle"):
        load_variant(str(loop))


def test_a_house_file_named_after_a_built_in_extends_the_built_in(tmp_path):
    (tmp_path / "classical.toml").write_text('extends = "classical"\ntitle = "Classical, our way"\n'
                                             '[settlement]\nmethod = "classical"\neast_factor = 1\n')
    (tmp_path / "ours.toml").write_text('extends = "classical"\ntitle = "Ours"\n')
    ours = load_variant("classical", [tmp_path])
    assert ours.title == "Classical, our way" and ours.settlement.east_factor == 1
    assert ours.stacks_per_wall == load_variant("classical").stacks_per_wall  # the rest from the built-in
    assert load_variant("ours", [tmp_path]).settlement.east_factor == 1  # the club's classical, in turn
    (tmp_path / "a.toml").write_text('extends = "b"\nname = "a"\n')
    (tmp_path / "b.toml").write_text('extends = "a"\nname = "b"\n')
    with pytest.raises(VariantError, match="circle"):  # a real circle is still one
        load_variant("a", [tmp_path])


def test_factors_and_limits_below_one_are_refused(tmp_path):
    f = tmp_path / "odd.toml"
    f.write_text('extends = "classical"\n[settlement]\nmethod = "classical"\neast_factor = -2\n')
    with pytest.raises(VariantError, match="east_factor: Expected `int` >= 1"):
        load_variant(str(f))
