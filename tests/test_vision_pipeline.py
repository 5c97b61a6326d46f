"""Camera scoring pipeline: unusable pictures are rejected with the reason (issue 5, item 3)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from boardside.cli import main


def test_unreadable_and_mat_less_pictures_are_rejected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    assert main(["ctrl", "score-images", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "notes.jpg" in err and len(err.strip().splitlines()) == 1
    rng = np.random.default_rng(0)
    table = (rng.normal(120, 25, (720, 1280, 3))).clip(0, 255).astype(np.uint8)  # a textured table, no mat
    p = tmp_path / "table.jpg"
    cv2.imwrite(str(p), table)
    assert main(["ctrl", "score-images", str(p)]) == 2
    assert "table.jpg" in capsys.readouterr().err


@pytest.mark.parametrize("kind,needle", [("dark", "too dark"), ("white", "over-exposed"), ("blur", "blurred")])
def test_bad_exposure_and_blur(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, needle: str) -> None:
    if kind == "dark":
        img = np.full((720, 1280, 3), 8, np.uint8)
    elif kind == "white":
        img = np.full((720, 1280, 3), 255, np.uint8)
    else:
        img = np.zeros((720, 1280, 3), np.uint8)
        img[:, 640:] = 200
        img = cv2.GaussianBlur(img, (0, 0), 25)
    p = tmp_path / f"{kind}.jpg"
    cv2.imwrite(str(p), img)
    assert main(["ctrl", "score-images", str(p)]) == 2
    assert needle in capsys.readouterr().err
