import pytest


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Uploaded logs go to a per-test folder, never into var/."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
