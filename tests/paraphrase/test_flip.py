import keyword

import pytest

from benchsmith.paraphrase.flip import BUILTIN_NAMES, build_mapping, flip_case, flippable_positions, variants

NAMES = ["encode", "Encoder", "DEFAULT_WIDTH", "_cache", "x", "test_encode", "TestEncoder", "a1", "merge_cookies"]


@pytest.mark.parametrize("name", NAMES)
def test_flip_changes_only_case_and_at_least_one_letter(name):
    flipped = flip_case(name, seed=0)
    assert flipped != name
    assert flipped.lower() == name.lower()
    assert flipped.isidentifier()


@pytest.mark.parametrize("name", NAMES)
def test_flip_is_deterministic_per_name_and_seed(name):
    assert flip_case(name, 3) == flip_case(name, 3)


def test_different_seeds_give_different_flips():
    assert {flip_case("merge_environment_settings", seed) for seed in range(5)} != {
        flip_case("merge_environment_settings", 0)
    }


def test_test_prefixes_are_kept_and_never_created():
    assert flip_case("test_encode", 0).startswith("test")
    assert flip_case("TestEncoder", 0).startswith("Test")
    assert flippable_positions("test") == []
    for seed in range(50):
        assert not flip_case("TEST_DATA", seed).startswith(("test", "Test"))


def test_never_a_keyword_builtin_or_dunder():
    # "none" could become the keyword None, "true" True, "ellipsis" the builtin Ellipsis
    for name in ["none", "true", "false", "ellipsis", "len"]:
        for candidate in variants(name, 0):
            assert not keyword.iskeyword(candidate)
            assert candidate not in BUILTIN_NAMES
    assert "None" not in set(variants("none", 0))


def test_names_without_letters_have_no_variant():
    with pytest.raises(ValueError, match="'_'"):
        flip_case("_", 0)
    assert list(variants("__", 0)) == []


def test_mapping_is_injective_and_avoids_taken_names():
    mapping, failed = build_mapping(["y", "ab", "cd"], seed=0, taken={"AB", "aB"})
    assert failed == []
    assert mapping["y"] == "Y"
    assert mapping["ab"] == "Ab"  # its only free variant
    assert len(set(mapping.values())) == len(mapping) == 3


def test_a_name_whose_variants_are_all_taken_fails():
    mapping, failed = build_mapping(["x"], seed=0, taken={"X"})
    assert mapping == {} and failed == ["x"]


def test_flipped_names_never_equal_another_requested_name():
    mapping, failed = build_mapping(["ab", "Ab", "aB"], seed=1, taken=set())
    assert mapping == {"Ab": "AB"}  # the one spelling left; the other two names have none
    assert failed == ["aB", "ab"]
