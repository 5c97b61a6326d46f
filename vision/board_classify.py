"""Board classify stage: what stands on each cell (or Gridopolis pad) of a located board, and its colour.

Method (docs/boards_vision.md):

1. **Probes.**  Above every site (a cell's centre on the board, or a pad's top) a small grid of
   vertical lines is sampled at several heights: 3D probe points in board mm.
2. **Observation.**  Each probe is projected into the picture (lens distortion included).  Its ray
   runs on to the board plane, where the printed board's colour is known (``render_board``).  After
   a white balance taken from the board's own paper, a probe whose colour differs in chromaticity
   from the print behind it, or is much brighter than it, shows *something standing there*
   ("piece-ness" 0..1).  This is why piece height matters: a probe point ``z`` mm up sees a piece
   only if the piece reaches that high.
3. **Hypotheses.**  Each possible content of a site (``vision.board_pieces``: empty, cube, tower,
   royal tower, character, token, pawn, king) is a few solids.  For each, the probes its solids
   would hide are predicted by intersecting the probe rays with them; the hypothesis whose
   prediction best matches the observed piece-ness wins.  Probes whose ray meets a piece of
   *another* site (in front or behind) say nothing about this site and are left out; this is
   iterated once the first assignment is known.
4. **Colour.**  The owner / token colour is the median hue of the probes inside the winning
   hypothesis' coloured solid that the camera sees directly.
5. **Occluded.**  A site where probes above the tallest piece still see "something" is covered (a
   hand, an arm) and is reported as ``occluded`` instead of being guessed.

Confidence per site: how much better the winner explains the probes than the runner-up, scaled by
the share of the site's probes that could be used.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpec, render_board
from calibration.colour import linear_to_lab, srgb8_to_linear
from vision.board_locate import BoardPose
from vision.board_pieces import Hypothesis, PieceGeometry, hypotheses_for
from vision.board_rays import hits, segments_to_board

__all__ = ["CellReading", "ClassifyBoardConfig", "Site", "classify_sites", "flat_sites"]

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

#: hue prototypes (CIELAB hue angle, degrees) of the pieces' plastics
HUES: dict[str, float] = {"red": 35.0, "orange": 60.0, "yellow": 90.0, "green": 150.0, "blue": 265.0,
                          "purple": 315.0, "pink": 0.0, "brown": 65.0}


@dataclass(frozen=True)
class ClassifyBoardConfig:
    """Thresholds of the classify stage (one place; never per scene)."""

    line_reach: float = 0.8  # probe lines off the centre, x the widest solid's half-size
    height_step_mm: float = 4.0
    above_tallest_mm: float = 10.0  # probes this far above the tallest piece detect a covering hand
    dab_lo: float = 7.0  # CIELAB a*b* difference from the print: below = board
    dab_hi: float = 16.0  # above = something standing there
    brighter_lo: float = 18.0  # L* above the print's by this much: something (a white piece on ink)
    brighter_hi: float = 35.0
    occluded_share: float = 0.5  # share of the probes above the tallest piece that see something
    min_weight: float = 0.15  # share of a site's probes usable, below which it is "unseen"
    iterations: int = 2
    min_chroma: float = 10.0  # below: a grey / white / black piece
    blur_px: int = 3
    board_px_per_mm: float = 2.0
    geometry: PieceGeometry = field(default_factory=PieceGeometry)


@dataclass(frozen=True)
class Site:
    """A place a piece can stand: ``key`` (x, y) or (x, y, level), centre in board mm, floor height."""

    key: tuple[int, ...]
    x_mm: float
    y_mm: float
    floor_mm: float = 0.0


@dataclass(frozen=True)
class CellReading:
    """What the reader saw on one site."""

    key: tuple[int, ...]
    kind: str  # "empty", a piece kind, "occluded" or "unseen"
    colour: str | None
    cubes: int
    character: bool
    confidence: float
    character_colour: str | None = None
    scores: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {"site": list(self.key), "kind": self.kind, "colour": self.colour,
                                  "confidence": round(self.confidence, 3)}
        if self.cubes:
            doc["cubes"] = self.cubes
        if self.character:
            doc["character"] = self.character_colour
        return doc


def flat_sites(spec: BoardSpec) -> list[Site]:
    """Every cell of a flat board, at floor height 0."""
    return [Site((x, y), *spec.cell_centre_mm(x, y)) for y in range(spec.rows) for x in range(spec.cols)]


@dataclass(frozen=True, eq=False)
class _Appearance:
    lin: npt.NDArray[np.float32]  # expected linear RGB of the print, (H, W, 3)
    bi_region: tuple[float, float, float, float]
    k: float


@lru_cache(maxsize=8)
def _appearance(spec: BoardSpec, px_per_mm: float) -> _Appearance:
    bi = render_board(spec, px_per_mm)
    lin = srgb8_to_linear(bi.image).astype(np.float32)
    lin = np.asarray(cv2.GaussianBlur(lin, (0, 0), 0.6 * px_per_mm), np.float32)  # about a camera's blur
    return _Appearance(lin, bi.region_mm, px_per_mm)


def _expected(app: _Appearance, xy: F64) -> tuple[F64, npt.NDArray[np.bool_]]:
    x0, y0, x1, y1 = app.bi_region
    inside = (xy[:, 0] > x0 + 1) & (xy[:, 0] < x1 - 1) & (xy[:, 1] > y0 + 1) & (xy[:, 1] < y1 - 1)
    col = ((xy[:, 0] - x0) * app.k - 0.5).astype(np.float32).reshape(1, -1)
    row = ((y1 - xy[:, 1]) * app.k - 0.5).astype(np.float32).reshape(1, -1)
    out = cv2.remap(app.lin, col, row, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.float64).reshape(-1, 3), inside


def _sample(img: U8, px: F64) -> F64:
    """Linear RGB of a BGR image at pixels (N, 2), bilinear."""
    m = px.astype(np.float32)
    out = cv2.remap(img, m[:, 0].reshape(1, -1), m[:, 1].reshape(1, -1), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return srgb8_to_linear(np.asarray(out, np.float64).reshape(-1, 3)[:, ::-1])


def _hue_name(lab: F64, cfg: ClassifyBoardConfig, allowed: Sequence[str] | None) -> str | None:
    a, b = float(lab[1]), float(lab[2])
    chroma = math.hypot(a, b)
    if chroma < cfg.min_chroma:
        return "white" if lab[0] > 70 else "grey" if lab[0] > 30 else "black"
    hue = math.degrees(math.atan2(b, a)) % 360
    names = [n for n in HUES if allowed is None or n in allowed]
    if not names:
        return None
    return min(names, key=lambda n: abs((hue - HUES[n] + 180) % 360 - 180))


def _solid_rows(h: Hypothesis, site: Site) -> F64:
    if not h.solids:
        return np.zeros((0, 6))
    return np.array([[0.0 if s.shape == "box" else 1.0, site.x_mm, site.y_mm, s.half, site.floor_mm + s.z0,
                      site.floor_mm + s.z1] for s in h.solids])


def classify_sites(
    image: U8,
    pose: BoardPose,
    sites: Sequence[Site],
    game: str,
    *,
    colours: Sequence[str] | None = None,
    structure: F64 | None = None,
    config: ClassifyBoardConfig | None = None,
    timings: dict[str, float] | None = None,
) -> list[CellReading]:
    """Read every site of a located board: kind, colour, confidence (module docstring).

    ``colours`` limits the owner colours to expect (the players' colours); ``structure`` lists fixed
    solids (rows as in :func:`vision.board_rays.hits`: Gridopolis pads and posts) that are part of
    the background, not pieces."""
    cfg = config or ClassifyBoardConfig()
    t0 = time.perf_counter()
    hyps = hypotheses_for(game, cfg.geometry)
    widest = max(s.half for h in hyps for s in h.solids)
    tallest = max(s.z1 for h in hyps for s in h.solids)
    zs = np.arange(cfg.height_step_mm / 2, tallest + cfg.above_tallest_mm, cfg.height_step_mm)
    above = zs > tallest + 2.0
    cam = pose.camera_position
    n_s, n_z = len(sites), len(zs)
    centres = np.array([[s.x_mm, s.y_mm, s.floor_mm] for s in sites])
    # vertical probe lines: the centre, and towards / away from the camera and to both sides of it
    u = centres[:, :2] - cam[None, :2]
    u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
    v = np.column_stack([-u[:, 1], u[:, 0]])
    a = cfg.line_reach * widest
    offs = np.stack([np.zeros_like(u), a * u, -a * u, a * v, -a * v], axis=1)  # (S, L, 2)
    n_l = offs.shape[1]
    probes = np.empty((n_s, n_l, n_z, 3))
    probes[..., :2] = centres[:, None, None, :2] + offs[:, :, None, :]
    probes[..., 2] = centres[:, None, None, 2] + zs[None, None, :]
    probes_s: F64 = probes.reshape(n_s, n_l * n_z, 3)
    flat = probes_s.reshape(-1, 3)
    w, h = pose.image_size
    px = pose.project(flat)
    in_img = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    ends = segments_to_board(cam, flat)
    blurred: U8 = np.asarray(cv2.blur(image, (cfg.blur_px, cfg.blur_px)), np.uint8) if cfg.blur_px > 1 else image
    obs = _sample(blurred, np.where(in_img[:, None], px, 0.0))
    app = _appearance(pose.spec, cfg.board_px_per_mm)
    exp, on_board = _expected(app, ends[:, :2])
    if structure is not None and len(structure):
        on_struct: npt.NDArray[np.bool_] = np.asarray(np.asarray(hits(cam, ends, structure), bool).any(axis=1))
        exp = np.where(on_struct[:, None], np.array([0.5, 0.5, 0.5]), exp)
    t1 = time.perf_counter()
    # white balance from the board's paper: probes low over the board, where the print is white
    gain = _paper_gain(blurred, pose, app)
    lab_o = linear_to_lab(np.clip(obs / gain[None, :], 0.0, None))
    lab_e = linear_to_lab(exp)
    dab = np.hypot(lab_o[:, 1] - lab_e[:, 1], lab_o[:, 2] - lab_e[:, 2])
    p_c = np.clip((dab - cfg.dab_lo) / (cfg.dab_hi - cfg.dab_lo), 0.0, 1.0)
    p_l = np.clip((lab_o[:, 0] - lab_e[:, 0] - cfg.brighter_lo) / (cfg.brighter_hi - cfg.brighter_lo), 0.0, 1.0)
    piece = np.maximum(p_c, p_l).reshape(n_s, -1)
    valid = (in_img & on_board).reshape(n_s, -1)
    lab_o = lab_o.reshape(n_s, -1, 3)
    # sites where no probe sees anything are empty: only the others are weighed in detail
    cand = np.nonzero(((piece > 0.5) & valid).any(axis=1))[0]
    t2 = time.perf_counter()
    ends_s = ends.reshape(n_s, -1, 3)
    n_p = probes_s.shape[1]
    pred = np.zeros((len(hyps), n_s, n_p), bool)
    inside_role: list[dict[str, npt.NDArray[np.bool_]]] = []
    for k, hyp in enumerate(hyps):
        roles: dict[str, npt.NDArray[np.bool_]] = {}
        if hyp.solids and len(cand):
            rows = np.stack([_solid_rows(hyp, sites[int(i)]) for i in cand])  # (C, m, 6)
            hit = hits(cam, ends_s[cand], rows[:, None, :, :])  # (C, P, m)
            pred[k, cand] = hit.any(axis=2)
            for j, sol in enumerate(hyp.solids):
                if sol.role == "cube":
                    continue
                ins = np.zeros((n_s, n_p), bool)
                ins[cand] = _inside(probes_s[cand], rows[:, j, :])
                roles[sol.role] = roles.get(sol.role, np.zeros_like(ins)) | ins
        inside_role.append(roles)
    t3 = time.perf_counter()
    weight = valid.astype(np.float64)
    choice = _choose(pred, piece, weight)
    for _ in range(cfg.iterations):
        others = [(_solid_rows(hyps[c], s), i) for i, (c, s) in enumerate(zip(choice, sites, strict=True))]
        rows_all = [r for r, _ in others if len(r)]
        if not rows_all:
            break
        owner = np.concatenate([np.full(len(r), i) for r, i in others if len(r)])
        allr = np.concatenate(rows_all)
        # only candidate sites need it: the others saw nothing at all
        hit = hits(cam, ends_s[cand], allr[None, None, :, :])  # (C, P, G)
        blocked = np.zeros((n_s, n_p), bool)
        blocked[cand] = (hit & (owner[None, None, :] != cand[:, None, None])).any(axis=2)
        weight = (valid & ~blocked).astype(np.float64)
        new = _choose(pred, piece, weight)
        if np.array_equal(new, choice):
            break
        choice = new
    t4 = time.perf_counter()
    scores = _scores(pred, piece, weight)  # (K, S)
    cand_set = {int(i) for i in cand}
    out: list[CellReading] = []
    used = weight.sum(axis=1) / weight.shape[1]
    for i, site in enumerate(sites):
        k = int(choice[i])
        hyp = hyps[k]
        order = np.argsort(-scores[:, i])
        margin = float(scores[order[0], i] - scores[order[1], i]) if len(order) > 1 else 1.0
        seen = float(np.clip(used[i] / 0.5, 0.0, 1.0))
        conf = float(np.clip(margin / 0.15, 0.0, 1.0)) * seen if i in cand_set else seen
        hi_probes = np.tile(above, n_l) & (weight[i] > 0)
        kind = hyp.kind
        if used[i] < cfg.min_weight:
            kind, conf = "unseen", 0.0
        elif hi_probes.sum() >= 3 and float(piece[i, hi_probes].mean()) > cfg.occluded_share:
            kind = "occluded"
            conf = float(piece[i, hi_probes].mean())
        colour = None
        char_colour = None
        if kind not in ("unseen", "occluded"):
            for role, ins in inside_role[k].items():
                sel = ins[i] & (weight[i] > 0)
                if not sel.any():
                    continue
                lab = np.median(lab_o[i, sel], axis=0)
                name = _hue_name(lab, cfg, None if role == "token" else colours)
                if role == "character":
                    char_colour = name
                else:
                    colour = name
        out.append(CellReading(site.key, kind, colour, hyp.cubes, hyp.character, conf, char_colour,
                               {hyps[j].kind + (f"+{hyps[j].cubes}" if hyps[j].cubes else ""): float(scores[j, i])
                                for j in range(len(hyps))}))
    t5 = time.perf_counter()
    if timings is not None:
        timings["classify.observe_s"] = t1 - t0
        timings["classify.colour_s"] = t2 - t1
        timings["classify.predict_s"] = t3 - t2
        timings["classify.occlusion_s"] = t4 - t3
        timings["classify.decide_s"] = t5 - t4
    return out


def _inside(probes: F64, rows: F64) -> npt.NDArray[np.bool_]:
    """(S, P): is each site's probe inside that site's solid ``rows`` (S, 6)?"""
    dx = probes[..., 0] - rows[:, None, 1]
    dy = probes[..., 1] - rows[:, None, 2]
    r = rows[:, None, 3]
    z = probes[..., 2]
    inz = (z >= rows[:, None, 4]) & (z <= rows[:, None, 5])
    box = (np.abs(dx) <= r) & (np.abs(dy) <= r)
    cyl = dx * dx + dy * dy <= r * r
    return np.asarray(inz & np.where(rows[:, None, 0] == 0, box, cyl), bool)


def _scores(pred: npt.NDArray[np.bool_], piece: F64, weight: F64) -> F64:
    agree = np.where(pred, piece[None], 1.0 - piece[None])  # (K, S, P)
    wsum = np.maximum(weight.sum(axis=1), 1e-9)
    return np.asarray((agree * weight[None]).sum(axis=2) / wsum[None], np.float64)


def _choose(pred: npt.NDArray[np.bool_], piece: F64, weight: F64) -> npt.NDArray[np.int64]:
    return np.asarray(np.argmax(_scores(pred, piece, weight), axis=0), np.int64)


def _paper_gain(img: U8, pose: BoardPose, app: _Appearance) -> F64:
    """Per-channel gain mapping the board's white paper to its printed white (robust median over
    a grid of board points whose print is white; pieces and shadows on a few of them do not matter)."""
    x0, y0, x1, y1 = pose.spec.extent_mm
    gx, gy = np.meshgrid(np.linspace(x0 + 2, x1 - 2, 40), np.linspace(y0 + 2, y1 - 2, 30))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    exp, _ = _expected(app, xy)
    white = exp.min(axis=1) > 0.8
    pts = np.column_stack([xy[white], np.zeros(int(white.sum()))])
    px = pose.project(pts)
    w, h = pose.image_size
    ok = (px[:, 0] > 2) & (px[:, 0] < w - 3) & (px[:, 1] > 2) & (px[:, 1] < h - 3)
    if ok.sum() < 10:
        return np.ones(3)
    obs = _sample(img, px[ok])
    lum = obs.mean(axis=1)
    bright = lum >= np.percentile(lum, 40)  # shadows and pieces are darker than the lit paper
    g = np.median(obs[bright] / exp[white][ok][bright], axis=0)
    return np.asarray(np.maximum(g, 1e-3), np.float64)
