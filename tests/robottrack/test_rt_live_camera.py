"""A real camera (only with ``pytest --camera N``): the closed loop's frame source delivers frames."""

from __future__ import annotations

import pytest

from boardside.camerafeed import CameraFrames


@pytest.mark.hardware(device="camera")
def test_live_camera_frames(request: pytest.FixtureRequest) -> None:
    index = int(request.config.getoption("--camera"))
    source = CameraFrames(index)
    try:
        a = source.read()
        b = source.read()
    finally:
        source.close()
    assert a.ndim == 3 and a.shape[2] == 3 and a.shape == b.shape
