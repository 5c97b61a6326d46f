"""Session 17, board frame time: what the board reader keeps to avoid doing work twice gives the same readings
as doing it again -- the per-picture preparation (:class:`vision.board_classify.PictureCache`: blur, table
colour, shadow light, hands) kept across readings of one picture with different pads, and the probes of the
Gridopolis places observed once for two readings (``observed``).  On the committed fixtures (rendered
photographs, simulated)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import vision.board_classify as bc
from calibration.boards import gridopolis_pad_centre_mm, gridopolis_pads
from tests.boardread.test_board_round5 import scene_with_pose
from vision.board_classify import PictureCache, Site, classify_sites
from vision.board_pads import candidate_pads, detect_pads
from vision.board_pipeline import sites_for, structure_groups

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def _read(img: Any, pose: Any, sites: list[Site], structure: Any, gain: Any, **kw: Any) -> list[Any]:
    return classify_sites(img, pose, sites, "gridopolis", structure=structure, gain=gain,
                          structure_groups=structure_groups(sites, len(structure)), **kw)


def test_picture_cache_gives_the_readings_of_a_fresh_preparation() -> None:
    """A picture read with the standard pads, then again with one pad left out, keeping what the first reading
    prepared from the picture alone: the second reading is the one a fresh preparation gives, and the kept blur,
    table colour and shadow light / hands were made once (the cache holds one entry each)."""
    for n in (0, 3):
        img, _, _, pose = scene_with_pose(FIXTURES / "gridopolis" / f"scene_{n:03d}", "fixture truth")
        gain = detect_pads(img, pose).gain
        sites, structure = sites_for(pose.spec)
        pc = PictureCache(img, pose)
        first = _read(img, pose, sites, structure, gain, picture=pc)
        assert first == _read(img, pose, sites, structure, gain)
        blurred = next(iter(pc.blurred.values()))
        fewer, fewer_structure = sites_for(pose.spec, (), [gridopolis_pads(4)[-1]])
        kept = _read(img, pose, fewer, fewer_structure, gain, picture=pc)
        assert kept == _read(img, pose, fewer, fewer_structure, gain)
        assert len(pc.blurred) == len(pc.tables) == len(pc.shades) == 1
        assert next(iter(pc.blurred.values())) is blurred  # (made once, kept)


def test_picture_cache_of_another_picture_is_not_used() -> None:
    """A cache made from another picture (Bandera, white balance fitted by the reader) is left alone: the reading
    is the fresh one and the cache gains nothing; a cache of this picture, used twice, gives the fresh reading."""
    img, _, _, pose = scene_with_pose(FIXTURES / "bandera" / "scene_001", "fixture truth")
    img2, _, _, pose2 = scene_with_pose(FIXTURES / "bandera" / "scene_002", "fixture truth")
    sites, _ = sites_for(pose.spec)
    fresh = classify_sites(img, pose, sites, "bandera")
    other = PictureCache(img2, pose2)
    assert classify_sites(img, pose, sites, "bandera", picture=other) == fresh
    assert not other.blurred and not other.gains and not other.tables and not other.shades
    own = PictureCache(img, pose)
    assert classify_sites(img, pose, sites, "bandera", picture=own) == fresh
    assert len(own.gains) == 1
    assert classify_sites(img, pose, sites, "bandera", picture=own) == fresh


def test_places_observed_once_read_as_observed_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Gridopolis places read with some pads' sites after them, then alone with more obstacles (as the reader
    does for the places behind checked pieces): the second reading, taking the places' probes as the first call
    observed them, is the reading that observes them anew."""
    img, _, _, pose = scene_with_pose(FIXTURES / "gridopolis" / "scene_002", "fixture truth")
    gain = detect_pads(img, pose).gain
    sites, structure = sites_for(pose.spec)
    prepared: list[Any] = []
    cells = _read(img, pose, sites, structure, gain, prepared=prepared)
    std = set(gridopolis_pads(4))
    places = [k for k in candidate_pads() if k not in std and k[2] >= 1][:6]
    at = [*(Site(k, *gridopolis_pad_centre_mm(pose.spec, *k)) for k in places), *sites[:3]]
    rooms = np.array([[0.0, s.x_mm, s.y_mm, 20.0, s.floor_mm, s.floor_mm + 40.0] for s in sites[3:9]])
    empty = np.array([r.kind == "empty" for r in cells], bool)
    observed: list[Any] = []
    _read(img, pose, at, structure, gain, obstacles=rooms, pad_sites=sites, pad_empty=empty, prepared=prepared,
          observed=observed)
    assert observed
    calls: list[int] = []
    observe = bc._observe

    def counted(*a: Any, **k: Any) -> Any:
        calls.append(len(a[1]))
        return observe(*a, **k)

    monkeypatch.setattr(bc, "_observe", counted)
    more = np.concatenate([rooms, np.array([[0.0, s.x_mm, s.y_mm, 20.0, s.floor_mm, s.floor_mm + 40.0]
                                            for s in sites[9:12]])])
    again = _read(img, pose, at[:len(places)], structure, gain, obstacles=more, pad_sites=sites, pad_empty=empty,
                  prepared=prepared, observed=observed)
    n_again = len(calls)
    anew = _read(img, pose, at[:len(places)], structure, gain, obstacles=more, pad_sites=sites, pad_empty=empty,
                 prepared=prepared)
    assert again == anew
    # (the places' own probes were not observed again: the fresh reading observes more points)
    assert sum(calls[:n_again]) < sum(calls[n_again:])
    # (observations of other sites are not taken: the reading is the fresh one)
    other = _read(img, pose, at[1:len(places)], structure, gain, obstacles=more, pad_sites=sites, pad_empty=empty,
                  prepared=prepared, observed=observed)
    assert other == _read(img, pose, at[1:len(places)], structure, gain, obstacles=more, pad_sites=sites,
                          pad_empty=empty, prepared=prepared)


def test_skin_kept_for_the_hand_without_grouping() -> None:
    """Bandera looks for the hand with its fingers grouped (``cover_join_px``) and again without (the sites the
    grouping alone covers): the skin pixels are found once per picture and shared; the hand without grouping is
    the one found on a fresh picture, and with grouping the same as before."""
    found_any = False
    for n in (1, 4, 7, 10):  # (the committed Bandera pictures with a hand)
        img, _, _, pose = scene_with_pose(FIXTURES / "bandera" / f"scene_{n:03d}", "fixture truth")
        sites, _ = sites_for(pose.spec)
        cfg = bc.config_for("bandera")
        assert cfg.cover_join_px > 0
        plain = replace(cfg, cover_join_px=0)
        kept: list[Any] = []
        fresh: list[Any] = []
        classify_sites(img, pose, sites, "bandera", prepared=kept)
        classify_sites(img, pose, sites, "bandera", prepared=fresh)
        sc, sc2 = kept[0], fresh[0]
        joined = bc._hand_mask(sc, cfg)  # (computed already by the reading: kept)
        again = bc._hand_mask(sc, plain)  # (the skin taken from the first look)
        alone = bc._find_hand(replace(sc2, hands={}), plain)  # (a fresh picture, nothing kept)
        alone_joined = bc._find_hand(replace(sc2, hands={}), cfg)
        for a, b in ((again, alone), (joined, alone_joined)):
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                found_any = True
                assert np.array_equal(a[0], b[0])
                assert (a[1] is None and b[1] is None) or np.array_equal(a[1], b[1])
    assert found_any
