"""Icons in pages come from Streamlit's bundled Material Symbols font (":material/name:"): an emoji
needs an emoji font the reviewer's machine may not have, and then draws as an empty box (issue 18)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICON = re.compile(r"""\bicon=(["'])(.*?)\1""")


def test_every_icon_in_the_app_is_a_material_icon():
    found = {}
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]:
        for match in ICON.finditer(path.read_text(encoding="utf-8")):
            found[f"{path.name}: {match.group(2)}"] = match.group(2)
    assert found, "no icons found: the pattern is stale"
    emoji = [where for where, icon in found.items() if not icon.startswith(":material/")]
    assert not emoji, f"emoji icons (boxes without an emoji font): {emoji}"
