"""The README's two commands: scripts/test.sh and scripts/run_app.sh install into a virtual
environment of their own (scripts/venv.sh), reinstall only when the requirements change, and the test
script stops with the command to run when the browser tests could not run."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.browser.conftest import missing_browser_parts

REPO = Path(__file__).resolve().parents[1]


def ensure_venv(venv: Path, requirements: Path) -> subprocess.CompletedProcess:
    script = f'source scripts/venv.sh && ensure_venv "{requirements}" "test packages"'
    return subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "RLI_VENV": str(venv)})


def test_the_scripts_install_into_their_own_environment_and_skip_pip_when_nothing_changed(tmp_path):
    included = tmp_path / "base.txt"
    included.write_text("# nothing to install\n")
    requirements = tmp_path / "reqs.txt"
    requirements.write_text("-r base.txt\n# also nothing\n")
    venv = tmp_path / "venv"

    first = ensure_venv(venv, requirements)
    assert first.returncode == 0, first.stderr
    assert (venv / "bin" / "python").exists() and (venv / "pyvenv.cfg").exists()
    assert "Installing the test packages" in first.stdout  # one line that says what it is doing

    again = ensure_venv(venv, requirements)
    assert again.returncode == 0 and again.stdout == ""  # nothing changed: pip is not run

    included.write_text("# nothing to install, but changed\n")  # a change in an included file counts
    changed = ensure_venv(venv, requirements)
    assert changed.returncode == 0 and "Installing" in changed.stdout


def test_both_scripts_use_the_environment_not_the_system_python():
    for name in ("test.sh", "run_app.sh"):
        text = (REPO / "scripts" / name).read_text()
        assert "source scripts/venv.sh" in text and '"$VENV_PYTHON" -m' in text
        assert "python3 -m pip" not in text


def test_the_test_script_fails_with_the_install_command_when_chromium_is_missing(tmp_path):
    # Arguments that would make a pytest run quick, in case the script wrongly went on to it.
    result = subprocess.run(["./scripts/test.sh", "--collect-only", "-q", "tests/test_model.py"], cwd=REPO,
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "RLI_CHROMIUM": str(tmp_path / "no-chromium")})
    assert result.returncode == 1, result.stdout[-2000:]
    assert "sudo apt-get install -y chromium fonts-noto-cjk" in result.stderr
    assert "test_model" not in result.stdout  # pytest never ran


def test_browser_tests_name_what_is_missing(tmp_path):
    missing = missing_browser_parts(tmp_path / "chromium", tmp_path / "font.ttc")
    assert len(missing) == 2 and "chromium" in missing[0] and "fonts-noto-cjk" in missing[1]
