"""Dependencies point one way: engine imports none of the other packages and no OpenCV or I/O."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_ENGINE = {"cv2", "vision", "calibration", "hardware", "boardside", "serial", "bleak", "bumble",
                       "socket", "sqlite3", "subprocess", "rich", "typer"}
FILE_IO_CALLS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "imread", "imwrite"}
LAYER_RULES = {
    "vision": {"boardside", "hardware"},
    "calibration": {"boardside", "vision", "hardware"},
    "hardware": {"boardside", "vision", "calibration"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_imports_nothing_above_it() -> None:
    files = list((ROOT / "engine").rglob("*.py"))
    assert files
    for f in files:
        bad = imported_roots(f) & FORBIDDEN_IN_ENGINE
        assert not bad, f"{f.relative_to(ROOT)} imports {sorted(bad)}"
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                assert name not in FILE_IO_CALLS, f"{f.relative_to(ROOT)} does file I/O ({name}())"


def test_layers_point_one_way() -> None:
    for pkg, forbidden in LAYER_RULES.items():
        for f in (ROOT / pkg).rglob("*.py"):
            if "firmware" in f.parts:
                continue
            bad = imported_roots(f) & forbidden
            assert not bad, f"{f.relative_to(ROOT)} imports {sorted(bad)}"
