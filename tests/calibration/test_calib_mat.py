"""The printable mat: specification round trips, layout, and the image <-> world mapping."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.errors import MatSpecError
from calibration.mat import PAPER_SIZES_MM, MatSpec, render_mat


@pytest.mark.parametrize("paper", sorted(PAPER_SIZES_MM))
def test_spec_round_trips(paper: str) -> None:
    spec = MatSpec.for_paper(paper, 22)
    assert MatSpec.parse(str(spec)) == spec
    assert MatSpec.from_json(spec.to_json()) == spec
    assert eval(repr(spec)) == spec  # paste-able repr
    assert MatSpec.parse(f"ctrl:{paper.lower()}:22") == spec


def test_default_is_a3_standard_layout() -> None:
    assert MatSpec() == MatSpec.for_paper("A3", 22.0)


@pytest.mark.parametrize(
    "text",
    ["A5", "ctrl:A3:big", "ctrl:A4:40", "mat game=ctrl paper=A3", ""],
)
def test_bad_specs_are_one_line_errors(text: str) -> None:
    with pytest.raises(MatSpecError) as info:
        MatSpec.parse(text)
    assert "\n" not in str(info.value)


def test_bad_fields() -> None:
    with pytest.raises(MatSpecError, match="dictionary"):
        MatSpec(dictionary="DICT_NOPE")
    with pytest.raises(MatSpecError, match="marker_mm"):
        MatSpec(marker_mm=30.0)
    with pytest.raises(MatSpecError, match="does not fit"):
        MatSpec(paper="A4")  # A3 pattern on A4 paper
    with pytest.raises(MatSpecError):
        MatSpec.from_json({"kind": "boardside.mat", "version": 1, "colour": "red"})


def test_world_frame_matches_docs_coordinates() -> None:
    spec = MatSpec.for_paper("A3", 22)
    w, h = spec.paper_size_mm
    # the footprint [0, 66] x [0, 66] is centred on the sheet
    centre = spec.world_to_mat([33.0, 33.0])
    assert np.allclose(centre, [w / 2, h / 2])
    # +x is to the right of the printed sheet, +y up the page (v decreases)
    a, b = spec.world_to_mat([[0.0, 0.0], [10.0, 10.0]])
    assert b[0] - a[0] == pytest.approx(10.0) and b[1] - a[1] == pytest.approx(-10.0)
    labels = spec.side_label_positions()
    assert labels["+x"][0] > 66 and labels["-x"][0] < 0 and labels["+y"][1] > 66 and labels["-y"][1] < 0
    x0, y0, x1, y1 = spec.paper_world_rect()
    assert (x1 - x0, y1 - y0) == pytest.approx((w, h))


@pytest.mark.parametrize("ppm", [3.0, 4.7])
def test_rendered_corners_are_where_the_world_mapping_says(ppm: float) -> None:
    spec = MatSpec.for_paper("A4", 22)
    mi = render_mat(spec, ppm)
    w, h = spec.paper_size_mm
    assert mi.image.shape == (round(h * ppm), round(w * ppm), 3)
    det = cv2.aruco.CharucoDetector(spec.charuco_board())
    cc, ci, _mc, mids = det.detectBoard(cv2.cvtColor(mi.image, cv2.COLOR_BGR2GRAY))
    assert sorted(int(i) for i in mids.reshape(-1)) == spec.printed_marker_ids()
    ci = ci.reshape(-1)
    keep = np.isin(ci, spec.corner_ids())
    assert keep.sum() == len(spec.corner_ids())
    pred = mi.world_to_pixel(spec.corner_world(ci[keep])[:, :2])
    assert np.abs(pred - cc.reshape(-1, 2)[keep]).max() < 0.15
    # the homogeneous matrix agrees with world_to_pixel, and pixel_to_world inverts it
    pts = spec.corner_world()[:, :2]
    m = mi.world_to_pixel_matrix()
    hom = (m @ np.column_stack([pts, np.ones(len(pts))]).T).T
    assert np.allclose(hom[:, :2], mi.world_to_pixel(pts))
    assert np.allclose(mi.pixel_to_world(mi.world_to_pixel(pts)), pts)


def test_patches_are_printed_in_their_colours() -> None:
    spec = MatSpec.for_paper("A3", 22)
    mi = render_mat(spec, 4.0)
    for p in spec.patches():
        cx, cy = mi.world_to_pixel(p.centre_world)
        b, g, r = mi.image[round(cy), round(cx)]
        assert (int(r), int(g), int(b)) == p.rgb, p.name
    names = {p.kind for p in spec.patches()}
    assert names == {"white", "grey", "black", "blue", "pink", "yellow", "green"}


def test_footprint_outline_is_at_the_world_footprint() -> None:
    spec = MatSpec.for_paper("A3", 22)
    mi = render_mat(spec, 5.0)
    gray = mi.image[:, :, 1]
    # just outside the footprint edge (0.5 mm) is the dark outline, inside (0.5 mm) is white paper
    for x, y in [(-0.5, 33.0), (66.5, 33.0), (33.0, -0.5), (33.0, 66.5)]:
        c, r = mi.world_to_pixel([x, y])
        assert gray[round(r), round(c)] < 100
    for x, y in [(0.6, 11.0), (65.4, 11.0), (11.0, 0.6), (11.0, 65.4)]:
        c, r = mi.world_to_pixel([x, y])
        assert gray[round(r), round(c)] > 200


@settings(max_examples=60, deadline=None)
@given(
    paper=st.sampled_from(sorted(PAPER_SIZES_MM)),
    block=st.floats(min_value=10.0, max_value=24.0, allow_nan=False),
    first_id=st.integers(min_value=0, max_value=100),
    uv=st.tuples(st.floats(-50, 500, allow_nan=False), st.floats(-50, 400, allow_nan=False)),
)
def test_spec_and_mapping_properties(
    paper: str, block: float, first_id: int, uv: tuple[float, float]
) -> None:
    spec = MatSpec.for_paper(paper, block, first_id=first_id)
    assert MatSpec.parse(str(spec)) == spec and MatSpec.from_json(spec.to_json()) == spec
    assert np.allclose(spec.world_to_mat(spec.mat_to_world(uv)), uv)
    # the footprint is inside the clear centre, the clear centre inside the sheet
    x0, y0, x1, y1 = spec.clear_world_rect()
    px0, py0, px1, py1 = spec.paper_world_rect()
    assert px0 < x0 < 0 and 3 * block < x1 < px1 and py0 < y0 < 0 and 3 * block < y1 < py1
    # corners are unique, on the table, and outside the clear centre
    w = spec.corner_world()
    assert len(np.unique(w.round(6), axis=0)) == len(w) and np.all(w[:, 2] == 0)
    inside = (w[:, 0] > x0) & (w[:, 0] < x1) & (w[:, 1] > y0) & (w[:, 1] < y1)
    assert not inside.any()
