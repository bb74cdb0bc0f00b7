from pathlib import Path

import pytest

from core.categories import Category
from core.chunks.policy import DEFAULT, NAIVE, Action, describe, load_policy, policy_from_mapping
from core.errors import PolicyError

ROOT = Path(__file__).resolve().parents[2]


def test_every_category_has_a_policy_in_every_builtin_and_example():
    for policy in (DEFAULT, NAIVE, load_policy(ROOT / "policies" / "default.toml"),
                   load_policy(ROOT / "policies" / "team_example.toml")):
        assert {c for c, _ in policy.categories} == set(Category)
        assert [row["category"] for row in describe(policy)] == [c.value for c in Category]


def test_defaults_follow_seed_000():
    assert DEFAULT.action(Category.CAPTION) is Action.ATTACH_TO_NEIGHBOR
    assert set(DEFAULT.of(Category.CAPTION).attach_targets) == {Category.PICTURE, Category.TABLE}
    assert DEFAULT.action(Category.FOOTNOTE) is Action.ATTACH_TO_NEIGHBOR
    for c in (Category.PAGE_HEADER, Category.PAGE_FOOTER, Category.REFERENCE, Category.DOCUMENT_INDEX):
        assert DEFAULT.action(c) is Action.METADATA_ONLY
    for c in (Category.FORMULA, Category.CODE, Category.TABLE):
        assert DEFAULT.action(c) is Action.ATOMIC_CHUNK
    assert DEFAULT.action(Category.DECORATIVE) is Action.EXCLUDE
    assert DEFAULT.param(Category.PAGE_FOOTER, "repeat_min_pages") == 3


def test_the_default_toml_mirrors_the_builtin_default():
    from_file = load_policy(ROOT / "policies" / "default.toml")
    assert from_file == DEFAULT
    assert from_file.fingerprint == DEFAULT.fingerprint


def test_a_team_file_overrides_only_what_it_names(tmp_path):
    path = tmp_path / "team.toml"
    path.write_text('name = "team"\nmax_chars = 300\n[categories.picture]\naction = "exclude"\n',
                    encoding="utf-8")
    team = load_policy(str(path))
    assert team.name == "team" and team.max_chars == 300
    assert team.action(Category.PICTURE) is Action.EXCLUDE
    assert team.of(Category.CAPTION) == DEFAULT.of(Category.CAPTION)
    assert team.fingerprint != DEFAULT.fingerprint


def test_fingerprint_is_stable_and_tracks_content():
    again = policy_from_mapping({"name": "default"})
    assert again.fingerprint == DEFAULT.fingerprint
    assert policy_from_mapping({"name": "default", "max_chars": 801}).fingerprint != DEFAULT.fingerprint
    assert NAIVE.fingerprint != DEFAULT.fingerprint


@pytest.mark.parametrize("data, named", [
    ({"categories": {"sidebar": {"action": "exclude"}}}, "categories.sidebar"),
    ({"categories": {"caption": {"action": "merge"}}}, "categories.caption.action = 'merge'"),
    ({"categories": {"caption": {"attach_targets": ["figure"]}}}, "categories.caption.attach_targets"),
    ({"categories": {"text": {"action": "attach_to_neighbor"}}}, "categories.text"),
    ({"categories": {"table": {"params": {"repeat_headers": True}}}}, "categories.table.params.repeat_headers"),
    ({"categories": {"picture": {"params": {"nearby_chars": "lots"}}}}, "categories.picture.params.nearby_chars"),
    ({"categories": {"caption": {"colour": "red"}}}, "categories.caption.colour"),
    ({"max_chars": 0}, "max_chars = 0"),
    ({"max_chars": True}, "max_chars = True"),
    ({"chunk_size": 500}, "'chunk_size'"),
    ({"mode": "semantic"}, "mode = 'semantic'"),
    ({"naive_overlap": 3000}, "naive_overlap = 3000"),
    ({"extends": "strict"}, "extends = 'strict'"),
    ({"sensitive_key_patterns": ["("]}, "sensitive_key_patterns[0]"),
])
def test_validation_names_the_bad_entry(data, named):
    with pytest.raises(PolicyError) as err:
        policy_from_mapping(data)
    assert named in str(err.value)


def test_bad_files_are_refused_with_their_name(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("max_chars = = 3", encoding="utf-8")
    with pytest.raises(PolicyError, match="broken.toml"):
        load_policy(str(broken))
    with pytest.raises(PolicyError, match="neither a built-in"):
        load_policy(str(tmp_path / "missing.toml"))


def test_naive_is_a_builtin_mode_with_seed_002_sizes():
    assert NAIVE.mode == "naive" and NAIVE.name == "naive"
    assert (NAIVE.naive_chunk_size, NAIVE.naive_overlap) == (2048, 300)
    assert load_policy("naive") is NAIVE and load_policy("default") is DEFAULT
