"""RLI_* number settings are read one way everywhere (core/settings.py)."""
import pytest

from core.errors import BadInput, BadSetting
from core.ingest.image_cap import pixel_cap
from core.ingest.layout_worker import page_seconds_cap
from core.ingest.pipeline import configured_max_bytes
from core.settings import positive_number, usable_cores


def test_unset_gives_the_default_and_a_set_value_is_read(monkeypatch):
    monkeypatch.delenv("RLI_TEST_NUMBER", raising=False)
    assert positive_number("RLI_TEST_NUMBER", 7.5, "seconds") == 7.5
    monkeypatch.setenv("RLI_TEST_NUMBER", "12")
    assert positive_number("RLI_TEST_NUMBER", 7.5, "seconds", int) == 12


@pytest.mark.parametrize("raw", ["abc", "0", "-3", "nan", "inf"])
def test_a_value_that_is_not_a_positive_finite_number_is_refused_by_name(monkeypatch, raw):
    monkeypatch.setenv("RLI_TEST_NUMBER", raw)
    with pytest.raises(BadSetting, match=r"RLI_TEST_NUMBER must be a (positive )?number of seconds"):
        positive_number("RLI_TEST_NUMBER", 1.0, "seconds")


@pytest.mark.parametrize("name, read", [("RLI_MAX_UPLOAD_MB", configured_max_bytes),
                                        ("RLI_MAX_IMAGE_MEGAPIXELS", pixel_cap),
                                        ("RLI_LAYOUT_PAGE_SECONDS", page_seconds_cap),
                                        ("RLI_CORES", usable_cores)])
def test_every_cap_refuses_nonsense_as_bad_input_and_as_a_value_error(monkeypatch, name, read):
    monkeypatch.setenv(name, "nan")
    with pytest.raises(BadInput, match=name):
        read()
    with pytest.raises(ValueError, match=name):
        read()
