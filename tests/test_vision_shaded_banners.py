"""Dark pixels that keep a piece hue: banner evidence only (docs/vision.md, "Session 11: shaded banners")."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.colour import ColourModel
from vision.classify import classify, dark_hue
from vision.labels import Label


@pytest.mark.parametrize(("bgr", "label"), [
    ((60, 25, 10), Label.BLUE),  # CIELAB about (10, 9, -24): a blue banner's shaded face
    ((20, 10, 45), Label.PINK),  # (8, 19, 2)
    ((10, 40, 45), Label.YELLOW),  # (16, -2, 19)
    ((15, 35, 15), Label.GREEN),  # (12, -14, 10)
    ((30, 30, 30), 0),  # (11, 0, 0): grey, no hue
    ((25, 28, 32), 0),  # (11, 1, 3): chroma 3, under 8
    ((200, 80, 30), 0),  # a bright blue block face: labelled by classify, not dark
])
def test_dark_hue(bgr: tuple[int, int, int], label: int) -> None:
    img = np.array([[bgr]], np.uint8)
    model = ColourModel()
    labels = classify(img, model)
    got = dark_hue(img, labels, model, 8.0, 25.0)
    assert int(got[0, 0]) == int(label)
    if label:
        assert labels[0, 0] == int(Label.UNKNOWN)  # only pixels the classifier does not judge
