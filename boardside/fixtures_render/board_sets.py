"""Rendered board fixtures for the flat-board games (issue #9): Bandera, Quirky Circuits, Gridopolis.

``fixtures/boards/<game>/scene_NNN.jpg`` + ``scene_NNN.json`` (docs/boards.md, "Fixtures").  Every
scene follows from the game's seed and the scene number: the position (played by the engine itself:
set-ups from ``new_state``, mid-games from random legal moves and chance events, and a few set-ups
deliberately broken, with the problems the engine's validator reports), the board printed by
:func:`calibration.boards.render_board`, the pieces, an optional hand over the board, the light
(warm, cold or dim), the camera (webcam or phone, lens distortion, 35-80 degrees elevation) and the
sensor.  Per-cell truth lists every piece with whether the picture shows it (from the renderer's
label pass).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.camera import CameraModel, look_at
from boardside.fixtures_render.errors import FixtureSetError
from boardside.fixtures_render.scene import (
    TABLES,
    BoardPiece,
    Lighting,
    SceneSpec,
    add_board,
    add_table,
    apply_lighting,
)
from boardside.fixtures_render.sensor import SensorEffects, develop, encode_jpeg
from boardside.fixtures_render.sets import Device
from calibration.boards import (
    GRIDOPOLIS_PAD_MM,
    ROBOT_TAG_IDS,
    TOKEN_ART,
    BoardSpec,
    RobotTag,
    board_spec,
    gridopolis_pad_top_mm,
    render_board,
    render_robot_tag,
)

FORMAT = 1
WIDTH, HEIGHT = 1280, 720
GAMES: dict[str, int] = {"bandera": 91001, "quirky": 91002, "gridopolis": 91003}  # game -> seed
SCENES = 12
#: scenes per game: Quirky adds two floor-robot boards (150 mm cells, tiled, interior markers)
SCENES_OF: dict[str, int] = {"bandera": SCENES, "quirky": SCENES + 2, "gridopolis": SCENES}
FLOOR_CELL_MM = 150.0
#: piece kinds of the per-cell truth (docs/boards.md)
PIECE_KINDS = (
    "cube",
    "tower2",
    "royal_tower",
    "flag",
    "character",
    "dust_bunny",
    "vase",
    "seed",
    "fossil",
    "quirky_flag",
    "pawn",
    "king",
    "blocker",
)
#: Quirky token kinds with their own name in the truth; any other scenario kind is written as
#: ``"token:<kind>"`` (ball, sock, cup, ...)
QUIRKY_PIECES = {"dust": "dust_bunny", "vase": "vase", "seed": "seed", "fossil": "fossil", "flag": "quirky_flag"}
QUIRKY_SCENARIOS = (
    "dust-bunnies",
    "kitchen-crumbs",
    "fetch",
    "fossil-dig",
    "tea-party",
    "ballroom",
    "plank-walk",
    "double-delivery",
    "first-dance",
    "fossil-dig",
)
#: a fixture-only scenario (in fixtures/boards/quirky/) with the token kinds no shipped scenario uses
FIXTURE_SCENARIOS = {"fossil-dig": "quirky/fossil-dig.toml"}

#: plastic colours (linear RGB) of the players' flags, characters and markers
PLAYER_RGB: dict[str, tuple[float, float, float]] = {
    "blue": (0.03, 0.12, 0.6),
    "red": (0.62, 0.03, 0.03),
    "green": (0.04, 0.38, 0.07),
    "yellow": (0.85, 0.6, 0.02),
}
#: Legends of Cubes cubes come in many colours ("cualquiera de los cubos"); the fixtures use colours
#: that are none of the players' so a flag's or character's colour is never ambiguous
CUBE_RGB: tuple[tuple[float, float, float], ...] = (
    (0.8, 0.78, 0.7),  # ivory
    (0.75, 0.25, 0.02),  # orange
    (0.25, 0.06, 0.35),  # purple
    (0.03, 0.03, 0.03),  # black
    (0.02, 0.3, 0.3),  # teal
    (0.45, 0.28, 0.14),  # wood
)
SKIN_RGB = ((0.58, 0.36, 0.25), (0.42, 0.24, 0.15), (0.2, 0.1, 0.06), (0.66, 0.45, 0.35))
LIGHTS = ("warm", "cold", "dim")
HEADING_DEG = {"E": 0.0, "N": 90.0, "W": 180.0, "S": 270.0}


@dataclass
class BoardScene:
    """Everything about one board scene except its pixels."""

    game: str
    index: int
    seed: int
    stage: str  # "setup" | "mid" | "broken"
    spec: BoardSpec
    state: dict[str, Any] | None
    scenario: str | None  # Quirky: a shipped id or a fixtures-relative .toml path
    problems: list[dict[str, str]]
    cells: list[dict[str, Any]]
    pieces: list[BoardPiece]
    robot: dict[str, Any] | None = None
    hand: dict[str, Any] | None = None
    light: str = "warm"
    notes: list[str] = field(default_factory=list)
    textures: dict[str, npt.NDArray[np.uint8]] = field(default_factory=dict)

    @property
    def stem(self) -> str:
        return f"scene_{self.index:03d}"


def _rng(seed: int, index: int, salt: int) -> np.random.Generator:
    return np.random.default_rng([seed, index, salt])


#: the random streams a second (third, ...) picture of the same table draws anew: the hand (salt 1) and the
#: camera's position and sensor (salt 4); the table, its light and the camera device stay the same
VIEW_SALTS = {1: 10, 4: 40}


def _view_salt(salt: int, view: int) -> int:
    """The salt of stream ``salt`` for picture number ``view`` (1: the fixture itself, unchanged)."""
    return salt + VIEW_SALTS[salt] * (view - 1) if view > 1 and salt in VIEW_SALTS else salt


def _play(
    state: Any, prng: random.Random, steps: int, prefer: Callable[[Any], bool] | None = None, bias: float = 0.0
) -> Any:
    """Random legal moves and sampled chance events (the engine's own), stopping at a decision point.
    With ``prefer``, a legal move it accepts is chosen with probability ``bias`` when there is one."""
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state = state.apply(state.sample_chance(prng))
            continue
        legal = list(state.legal_moves())
        liked = [m for m in legal if prefer(m)] if prefer is not None else []
        state = state.apply(prng.choice(liked if liked and prng.random() < bias else legal))
    while not state.is_terminal() and state.is_chance_node():
        state = state.apply(state.sample_chance(prng))
    return state


def _entry(x: int, y: int, piece: str, colour: str | None, level: int = 0, **extra: Any) -> dict[str, Any]:
    return {"x": x, "y": y, "level": level, "piece": piece, "colour": colour, "visible": True, **extra}


# ------------------------------------------------------------------------------------------ bandera


def _bandera(index: int, seed: int, rng: np.random.Generator) -> BoardScene:
    from engine.bandera import new_state, validate_state

    prng = random.Random(seed * 1000 + index)
    players = (2, 3, 4)[index % 3]
    problems: list[dict[str, str]] = []
    if index < 3:
        stage, doc = "setup", new_state(players).to_json()
    elif index < 10:
        stage = "mid"
        level = ("easy", "medium", "hard")[index % 3] if players == 2 else "easy"
        # random legal play that stacks whenever it may (a roll of 5 rarely allows it, so uniform play
        # seldom builds the two-cube towers the reader must see), best of four games by towers:
        # every position is one the engine reached by legal moves
        from engine.bandera.moves import MoveKind

        candidates = [
            _play(new_state(players, level), prng, prng.randint(40, 400), lambda m: m.kind == MoveKind.STACK, 1.0)
            for _ in range(4)
        ]
        doc = max(
            (c.to_json() for c in candidates),
            key=lambda d: sum(1 for e in d["board"] if e["cubes"] == 2 and not e.get("flag")),
        )
    else:
        stage = "broken"
        doc = new_state(2 if index == 10 else 4).to_json()
        if index == 10:  # a cube on zone A, which no cube may ever touch
            doc["board"].append({"x": 4, "y": 3, "cubes": 1})
            doc["supply"] -= 1
        else:  # blue's royal tower (with its character) one square off its corner
            for e in doc["board"]:
                if e.get("flag") == "blue":
                    e["y"] = 1
            doc["characters"]["blue"] = {"x": 0, "y": 1}
    problems = [p.to_json() for p in validate_state(doc)]
    spec = board_spec("bandera")
    cells: list[dict[str, Any]] = []
    pieces: list[BoardPiece] = []
    cube = 22.0
    chars_at: dict[tuple[int, int], list[str]] = {}
    for p, c in doc["characters"].items():
        chars_at.setdefault((c["x"], c["y"]), []).append(p)
    heights: dict[tuple[int, int], int] = {}
    for e in doc["board"]:
        x, y, n = e["x"], e["y"], e["cubes"]
        heights[(x, y)] = n
        flag = e.get("flag")
        kind = "royal_tower" if flag else ("tower2" if n == 2 else "cube")
        t = len(cells)
        cells.append(_entry(x, y, kind, flag))
        cx, cy = spec.cell_centre_mm(x, y)
        cx += float(rng.normal(0, 1.2))
        cy += float(rng.normal(0, 1.2))
        for k in range(n):
            colour = CUBE_RGB[int(rng.integers(len(CUBE_RGB)))]
            pieces.append(
                BoardPiece(
                    "cube",
                    cx + float(rng.normal(0, 0.5)),
                    cy + float(rng.normal(0, 0.5)),
                    colour,
                    1,
                    float(rng.normal(0, 5)),
                    cube,
                    z_mm=k * cube,
                    truth=t,
                )
            )
        if flag:
            pieces.append(
                BoardPiece(
                    "flag",
                    cx + 7.0,
                    cy + 7.0,
                    PLAYER_RGB.get(flag, (0.5, 0.5, 0.5)),
                    heading_deg=float(rng.uniform(0, 360)),
                    size_mm=14.0,
                    z_mm=n * cube,
                    height_mm=28.0,
                    truth=t,
                )
            )
    for (x, y), owners in sorted(chars_at.items()):
        n = heights.get((x, y), 0)
        cx, cy = spec.cell_centre_mm(x, y)
        for j, p in enumerate(owners):
            t = len(cells)
            cells.append(_entry(x, y, "character", p, on=n))
            off = (-4.0 if n == 2 else 0.0) + (j - (len(owners) - 1) / 2) * 8.0
            pieces.append(
                BoardPiece(
                    "character",
                    cx + off,
                    cy - 3.0 - (4.0 if n == 2 else 0.0) + j * 2.0,
                    PLAYER_RGB.get(p, (0.5, 0.5, 0.5)),
                    heading_deg=float(rng.uniform(0, 360)),
                    size_mm=12.0,
                    z_mm=n * cube,
                    truth=t,
                )
            )
    return BoardScene("bandera", index, seed, stage, spec, doc, None, problems, cells, pieces)


# ------------------------------------------------------------------------------------------ quirky


def _token_image(kind: str) -> npt.NDArray[np.uint8]:
    """The printed top of a Quirky token: its colour, a white disc and the kind's name."""
    import cv2

    n = 96
    bg = TOKEN_ART.get(kind, (200, 200, 200))
    img = np.full((n, n, 3), bg, np.uint8)
    cv2.circle(img, (n // 2, n // 2 - 6), 26, (250, 250, 250), -1, cv2.LINE_AA)
    label = kind.upper()[:7]
    scale = 0.55 if len(label) <= 5 else 0.42
    (tw, _th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    cv2.putText(img, label, ((n - tw) // 2, n - 8), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), 2, cv2.LINE_AA)
    dark = tuple(int(v * 0.45) for v in bg)
    cv2.circle(img, (n // 2, n // 2 - 6), 12, dark, -1, cv2.LINE_AA)
    return img


#: the committed board fixtures (their Quirky scenario files are copied from here when rendering under another root)
FIXTURE_BOARDS = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def load_scenario(ref: str, root: Path) -> Any:
    from engine.quirky.scenario import builtin_ids, builtin_scenario, parse_scenario

    if ref in builtin_ids():
        return builtin_scenario(ref)
    p = root / ref
    return parse_scenario(p.read_text(encoding="utf-8"), str(p))


def _quirky(index: int, seed: int, rng: np.random.Generator, root: Path) -> BoardScene:
    from engine.quirky.game import new_state, validate_state

    prng = random.Random(seed * 1000 + index)
    floor = index >= 12  # a floor robot on a board of 150 mm cells
    if floor:
        sid = ("kitchen-crumbs", "ballroom")[index - 12]
    else:
        sid = QUIRKY_SCENARIOS[index % len(QUIRKY_SCENARIOS)] if index < 10 else ("kitchen-crumbs", "fetch")[index - 10]
    ref = FIXTURE_SCENARIOS.get(sid, sid)
    scn = load_scenario(ref, root)
    state = new_state(scn, players=2 + index % 3)
    if (index < 10 and index % 2 == 1) or index == 12:
        stage = "mid"
        state = _play(state, prng, prng.randint(20, 120))
    else:
        stage = "setup" if index < 10 or floor else "broken"
    doc = state.to_json()
    if stage == "broken":
        obstacles = sorted(scn.board.obstacles)
        if index == 10:  # the vase put down on an obstacle
            doc["tokens"][0]["at"] = list(obstacles[0])
        else:  # the robot set down on an obstacle
            doc["robot"]["at"] = list(obstacles[-1])
    problems = [p.to_json() for p in validate_state(doc, scn)]
    spec = board_spec(
        "quirky",
        scenario=str(root / ref) if sid in FIXTURE_SCENARIOS else sid,
        cell_mm=FLOOR_CELL_MM if floor else None,
    )
    cells: list[dict[str, Any]] = []
    pieces: list[BoardPiece] = []
    textures: dict[str, npt.NDArray[np.uint8]] = {}
    c = spec.cell_mm
    by_cell: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for t in doc["tokens"]:
        if t.get("at") is None or t.get("fixed"):
            continue  # carried by the robot / printed on the board
        by_cell.setdefault((t["at"][0], t["at"][1]), []).append(t)
    for (x, y), toks in sorted(by_cell.items()):
        cx, cy = spec.cell_centre_mm(x, y)
        size = 0.6 * c if len(toks) == 1 else 0.42 * c
        for j, t in enumerate(toks):
            kind = str(t["kind"])
            piece = QUIRKY_PIECES.get(kind, f"token:{kind}")
            ti = len(cells)
            cells.append(_entry(x, y, piece, None, token=t["id"], **({"broken": True} if t.get("broken") else {})))
            off = 0.0 if len(toks) == 1 else (j - (len(toks) - 1) / 2) * 0.46 * c
            tex = f"token_{kind}"
            textures[tex] = _token_image(kind)
            pieces.append(
                BoardPiece(
                    "printed_token",
                    cx + off + float(rng.normal(0, 1.0)),
                    cy + (0.1 * c if len(toks) > 1 and j % 2 else 0.0) + float(rng.normal(0, 1.0)),
                    (1.0, 1.0, 1.0),
                    heading_deg=float(rng.normal(0, 6)),
                    size_mm=size,
                    height_mm=2.5,
                    texture=tex,
                    truth=ti,
                )
            )
    rx, ry = doc["robot"]["at"]
    facing = str(doc["robot"]["facing"])
    # table robot: 40 mm body, 30 mm tag 45 mm up; floor robot: 120 mm body, 80 mm tag 110 mm up
    tag = RobotTag(ROBOT_TAG_IDS[2], 80.0, 110.0) if floor else RobotTag(ROBOT_TAG_IDS[index % 2])
    body = 120.0 if floor else 40.0
    cx, cy = spec.cell_centre_mm(rx, ry)
    sd = 7.0 if floor else 2.5  # placement error, mm
    x_mm, y_mm = cx + float(rng.normal(0, sd)), cy + float(rng.normal(0, sd))
    heading = HEADING_DEG[facing] + float(rng.normal(0, 3.0))
    textures["robot_tag"] = render_robot_tag(tag, 10.0)
    pieces.append(
        BoardPiece(
            "tagged_robot",
            x_mm,
            y_mm,
            (0.85, 0.85, 0.88) if index % 2 else (0.9, 0.55, 0.1),
            heading_deg=heading,
            size_mm=body,
            height_mm=tag.height_mm,
            texture="robot_tag",
            truth=-2,
            tag_mm=tag.tag_mm,
        )
    )
    robot = {
        "x_mm": round(x_mm, 2),
        "y_mm": round(y_mm, 2),
        "heading_deg": round(heading % 360, 2),
        "cell": [rx, ry],
        "heading": facing,
        "tag": {"id": tag.id, "tag_mm": tag.tag_mm, "height_mm": tag.height_mm},
        "visible": True,
    }
    return BoardScene(
        "quirky", index, seed, stage, spec, doc, ref, problems, cells, pieces, robot=robot, textures=textures
    )


# ------------------------------------------------------------------------------------------ gridopolis


def _gridopolis(index: int, seed: int, rng: np.random.Generator) -> BoardScene:
    from engine.gridopolis import new_state, validate_state

    players = (2, 4, 3)[index % 3]
    prng = random.Random(seed * 1000 + index)
    if index < 2:
        stage, doc = "setup", new_state(players).to_json()
    elif index < 10:
        stage = "mid"
        for _attempt in range(50):  # a grid-set grown beyond the level guide is drawn again
            doc = _play(new_state(players), prng, prng.randint(10, 80)).to_json()
            if all(0 <= p[0] < 7 and 0 <= p[1] < 7 for p in doc["pads"]):
                break
        else:  # pragma: no cover
            raise FixtureSetError(f"gridopolis scene {index}: no position on the guide after 50 tries")
    else:
        stage = "broken"
        doc = new_state(players).to_json()
        if index == 10:  # a pawn that is not on its start row at the start
            doc["markers"][0]["pad"] = [3, 3, 1]
        else:  # a king at the start: all markers begin as pawns
            doc["markers"][-1]["king"] = True
    problems = [p.to_json() for p in validate_state(doc)]
    spec = board_spec("gridopolis")
    cells: list[dict[str, Any]] = []
    pieces: list[BoardPiece] = []
    pads = {tuple(p) for p in doc["pads"]}
    kinger = {tuple(k["pad"]): k["player"] for k in doc["kingerizers"]}
    hyper = {tuple(p) for p in doc["hyper_pads"]}
    grey = (0.62, 0.64, 0.66)
    colour: tuple[float, float, float]
    for x, y, lv in sorted(pads):
        cx, cy = spec.cell_centre_mm(x, y)
        top = gridopolis_pad_top_mm(lv)
        if (x, y, lv) in kinger:  # a kingerizer: a pad top in a pale tint of its player's colour
            r, g, b = (0.45 * v + 0.55 * 0.7 for v in PLAYER_RGB[kinger[(x, y, lv)]])
            colour = (r, g, b)
        elif (x, y, lv) in hyper:
            colour = (0.45, 0.3, 0.55)
        else:
            colour = grey
        pieces.append(BoardPiece("pad", cx, cy, colour, size_mm=GRIDOPOLIS_PAD_MM, z_mm=top, height_mm=6.0))
        for dx, dy in ((1, 0), (0, 1)):
            if (x + dx, y + dy, lv) in pads:
                ncx, ncy = spec.cell_centre_mm(x + dx, y + dy)
                pieces.append(
                    BoardPiece(
                        "link",
                        (cx + ncx) / 2,
                        (cy + ncy) / 2,
                        grey,
                        heading_deg=0.0 if dx else 90.0,
                        size_mm=spec.cell_mm - GRIDOPOLIS_PAD_MM + 6.0,
                        z_mm=top - 3.0,
                    )
                )
    for x, y, lv in (tuple(p) for p in doc["posts"]):
        cx, cy = spec.cell_centre_mm(x, y)
        z0 = gridopolis_pad_top_mm(lv - 1)
        z1 = gridopolis_pad_top_mm(lv) - 6.0
        for ox, oy in ((-14, -14), (14, 14)):  # a post is a pair of legs under the pad's corners
            pieces.append(BoardPiece("post", cx + ox, cy + oy, grey, size_mm=7.0, z_mm=z0, height_mm=z1 - z0))
    for b in doc["blockers"]:
        x, y, lv = b["pad"]
        cx, cy = spec.cell_centre_mm(x, y)
        t = len(cells)
        cells.append(_entry(x, y, "blocker", b["player"], lv))
        pieces.append(
            BoardPiece(
                "blocker",
                cx,
                cy,
                tuple(v * 0.6 for v in PLAYER_RGB[b["player"]]),  # type: ignore[arg-type]
                size_mm=26.0,
                z_mm=gridopolis_pad_top_mm(lv),
                truth=t,
            )
        )
    for m in doc["markers"]:
        x, y, lv = m["pad"]
        cx, cy = spec.cell_centre_mm(x, y)
        kind = "king" if m["king"] else "pawn"
        t = len(cells)
        cells.append(_entry(x, y, kind, m["player"], lv))
        pieces.append(
            BoardPiece(
                kind,
                cx + float(rng.normal(0, 1.0)),
                cy + float(rng.normal(0, 1.0)),
                PLAYER_RGB[m["player"]],
                size_mm=22.0,
                z_mm=gridopolis_pad_top_mm(lv),
                height_mm=12.0,
                truth=t,
            )
        )
    return BoardScene("gridopolis", index, seed, stage, spec, doc, None, problems, cells, pieces)


# ------------------------------------------------------------------------------------------ plan


def plan_board_scene(game: str, index: int, root: Path, view: int = 1) -> BoardScene:
    """Scene ``index`` of ``game``, entirely from the game's seed (no rendering).  ``view`` > 1: another
    picture of the same table -- same pieces and light, the hand (if any) elsewhere."""
    if game not in GAMES:
        raise FixtureSetError(f"unknown board fixture game {game!r} (expected one of {', '.join(GAMES)})")
    seed = GAMES[game]
    rng = _rng(seed, index, 0)
    if game == "bandera":
        scene = _bandera(index, seed, rng)
    elif game == "quirky":
        scene = _quirky(index, seed, rng, root)
    else:
        scene = _gridopolis(index, seed, rng)
    scene.light = LIGHTS[(index + index // 3) % 3]
    hrng = _rng(seed, index, _view_salt(1, view))
    if index % 3 == 1:
        scene.hand = _hand_plan(scene, hrng)
    return scene


def _top_of_pieces(scene: BoardScene) -> float:
    top = 0.0
    for p in scene.pieces:
        h = {"cube": p.size_mm, "flag": p.height_mm, "character": p.size_mm * 2.5, "tagged_robot": 2.0}.get(
            p.kind, p.height_mm
        )
        top = max(top, p.z_mm + h)
    return top


def _hand_plan(scene: BoardScene, rng: np.random.Generator) -> dict[str, Any]:
    """A hand reaching in from one side of the board, hovering over the pieces."""
    gw, gh = scene.spec.grid_mm
    side = str(rng.choice(["south", "east", "north", "west"]))
    depth = float(rng.uniform(0.25, 0.5))
    along = float(rng.uniform(0.25, 0.75))
    if side == "south":
        x, y, heading = along * gw, depth * gh, 90.0
    elif side == "north":
        x, y, heading = along * gw, (1 - depth) * gh, 270.0
    elif side == "west":
        x, y, heading = depth * gw, along * gh, 0.0
    else:
        x, y, heading = (1 - depth) * gw, along * gh, 180.0
    heading += float(rng.normal(0, 12))
    z = _top_of_pieces(scene) + float(rng.uniform(12, 45))
    return {
        "side": side,
        "fingertip_mm": [round(x, 1), round(y, 1)],
        "height_mm": round(z, 1),
        "heading_deg": round(heading, 1),
        "length_mm": round(float(rng.uniform(170, 195)), 1),
        "skin": int(rng.integers(len(SKIN_RGB))),
    }


def _lighting(kind: str, rng: np.random.Generator, centre: tuple[float, float]) -> Lighting:
    for _ in range(200):
        li = Lighting.sample(rng, centre)
        if kind == "dim" and li.dim:
            return li
        if kind == "warm" and not li.dim and li.kelvin < 3600:
            return li
        if kind == "cold" and not li.dim and li.kelvin > 4800:
            return li
    raise FixtureSetError(f"could not sample {kind!r} light")  # pragma: no cover


def camera_for(scene: BoardScene, device: Device, rng: np.random.Generator) -> tuple[CameraModel, dict[str, float]]:
    """A player's photo of the board: 35-80 degrees elevation from any side, the board filling the frame."""
    spec = scene.spec
    gw, gh = spec.grid_mm
    w, h = spec.size_mm
    elev = 35.0 + 45.0 * ((scene.index * 5) % 12) / 11.0 + float(rng.uniform(-2.0, 2.0))
    elev = float(np.clip(elev, 35.0, 80.0))
    az = float(rng.uniform(0, 360))
    roll = float(np.clip(rng.normal(0, 2.5), -6, 6))
    radius = 0.5 * math.hypot(w, h)
    fill = float(rng.uniform(0.7, 0.95))
    fy = device.K[1][1]
    vfov = 2 * math.atan((HEIGHT / 2) / fy)
    half = min(vfov, math.radians(device.hfov_deg)) / 2
    dist = radius * fill / math.tan(half)
    target = np.array([gw / 2, gh / 2, 30.0 if scene.game == "gridopolis" else 0.0]) + np.append(
        rng.normal(0, 10, 2), 0.0
    )
    e, a = math.radians(elev), math.radians(az)
    eye = target + dist * np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    R, t = look_at(eye, target, roll_deg=roll)
    return device.camera(R, t), {
        "elevation_deg": round(elev, 2),
        "azimuth_deg": round(az % 360, 2),
        "roll_deg": round(roll, 2),
        "distance_mm": round(dist, 1),
    }


def build_scene_spec(scene: BoardScene, rng: np.random.Generator) -> tuple[SceneSpec, Lighting]:
    from boardside.fixtures_render.board_pieces import add_texture

    w, h = scene.spec.size_mm
    bi = render_board(scene.spec, min(5.0, 3000.0 / max(w, h)))  # at most a 3000 px texture
    x0, y0, x1, y1 = scene.spec.extent_mm
    spec = SceneSpec()
    for name, img in scene.textures.items():
        add_texture(spec, name, img)
    pieces = list(scene.pieces)
    if scene.hand is not None:
        hd = scene.hand
        pieces.append(
            BoardPiece(
                "hand",
                hd["fingertip_mm"][0],
                hd["fingertip_mm"][1],
                SKIN_RGB[hd["skin"]],
                heading_deg=hd["heading_deg"],
                size_mm=hd["length_mm"],
                z_mm=hd["height_mm"],
                truth=-3,
            )
        )
    add_board(spec, bi.image, x1 - x0, y1 - y0, pieces, rng, origin_mm=(x0, y0))
    floor = scene.spec.cell_mm >= FLOOR_CELL_MM  # a floor robot's board lies on the floor
    add_table(spec, str(rng.choice(TABLES)), rng, size_mm=6000.0 if floor else 2400.0)
    lighting = _lighting(scene.light, rng, ((x0 + x1) / 2, (y0 + y1) / 2))
    if floor:  # ceiling lights: 1.2 m higher than over a table, as bright on the floor
        lights = tuple(
            dataclasses.replace(
                li,
                position=(li.position[0], li.position[1], li.position[2] + 1200.0),
                power=li.power * ((li.position[2] + 1200.0) / li.position[2]) ** 2,
            )
            for li in lighting.lights
        )
        lighting = dataclasses.replace(lighting, lights=lights)
    apply_lighting(spec, lighting)
    return spec, lighting


# ------------------------------------------------------------------------------------------ truth


def _label_truth(
    scene: BoardScene, spec: SceneSpec, parts: npt.NDArray[np.int32], camera: CameraModel
) -> dict[str, Any]:
    """Visibility of every truth entry, the robot tag and every marker, from the label pass."""
    truth_of = np.full(len(spec.parts) + 1, -9, np.int64)
    for k, part in enumerate(spec.parts):
        t = part.label.get("truth")
        if isinstance(t, int):
            truth_of[k] = t
    valid = parts >= 0
    tids, counts = np.unique(truth_of[parts[valid]], return_counts=True)
    pixels = dict(zip(tids.tolist(), counts.tolist(), strict=True))
    board_idx = next(k for k, p in enumerate(spec.parts) if p.name == "board")

    def board_seen(pts: npt.NDArray[np.float64], z: float = 0.0) -> bool:
        uv = camera.project(np.column_stack([pts, np.full(len(pts), z)]))
        for u, v in uv:
            if not (0 <= u <= WIDTH - 1 and 0 <= v <= HEIGHT - 1):
                return False
            if parts[round(float(v)), round(float(u))] != board_idx:
                return False
        return True

    fid_seen = []
    for f in scene.spec.fiducials:
        c = np.asarray(f.corners_mm)
        ctr = c.mean(axis=0)
        pts = np.vstack([ctr + 0.85 * (c - ctr), ctr[None, :]])
        if board_seen(pts):
            fid_seen.append(f.id)
    out: dict[str, Any] = {"pixels": pixels, "fiducials_visible": fid_seen}
    if scene.robot is not None:
        tag_parts = [k for k, p in enumerate(spec.parts) if p.name.endswith("_tag") and p.label.get("truth") == -2]
        tag = scene.robot["tag"]
        printed = tag["tag_mm"] / 2
        a = math.radians(scene.robot["heading_deg"])
        fwd, left = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        centre = np.array([scene.robot["x_mm"], scene.robot["y_mm"]])
        corners = [centre + fwd * s1 * printed * 0.9 + left * s2 * printed * 0.9 for s1 in (-1, 1) for s2 in (-1, 1)]
        uv = camera.project(np.column_stack([np.asarray(corners), np.full(4, tag["height_mm"] + 0.05)]))
        seen = all(
            0 <= u <= WIDTH - 1 and 0 <= v <= HEIGHT - 1 and int(parts[round(float(v)), round(float(u))]) in tag_parts
            for u, v in uv
        )
        out["tag_visible"] = bool(seen)
    return out


MIN_VISIBLE_PX = 30


def scene_truth(scene: BoardScene, camera: CameraModel | None = None) -> dict[str, Any]:
    """The JSON truth of a scene (the contract's fields; pixel data added by :func:`render_board_scene`)."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "file": f"{scene.stem}.jpg",
        "simulated": "rendered photograph",
        "game": scene.game,
        "scene": scene.index,
        "seed": scene.seed,
        "stage": scene.stage,
        "rerender": f"python -m boardside fixtures render-boards {scene.game} --scenes {scene.index} --force",
        "board": scene.spec.to_json(),
        "state": scene.state,
        "breaks_rules": bool([p for p in scene.problems if p.get("severity", "error") == "error"]),
        "problems": scene.problems,
        "cells": scene.cells,
        "robot": scene.robot,
        "hand": scene.hand,
        "light": scene.light,
    }
    if scene.scenario is not None:
        doc["scenario"] = scene.scenario
    if camera is not None:
        doc["camera"] = camera.to_json()
    return doc


def render_board_scene(scene: BoardScene, out_dir: Path, spp: int = 6, supersample: float = 0.75,
                       view: int = 1) -> dict[str, Any]:
    """Render ``scene`` and write its JPEG and JSON (atomically).  Returns the truth document.  ``view`` > 1:
    the camera (same device) stands elsewhere, as for a second picture of the same table."""
    from boardside.fixtures_render.mitsuba_backend import render

    rng = _rng(scene.seed, scene.index, 2)
    spec, lighting = build_scene_spec(scene, rng)
    device = Device.sample(_rng(scene.seed, scene.index, 3), "webcam" if scene.index % 2 == 0 else "phone")
    crng = _rng(scene.seed, scene.index, _view_salt(4, view))
    camera, pose = camera_for(scene, device, crng)
    fx = SensorEffects.sample(crng, lighting.dim)
    result = render(spec, camera, spp=spp, seed=int(crng.integers(1 << 30)), labels=True, supersample=supersample)
    assert result.part_index is not None
    bgr = develop(result.linear, fx, crng)
    jpeg = encode_jpeg(bgr, fx.jpeg_quality)
    lab = _label_truth(scene, spec, result.part_index, camera)
    doc = scene_truth(scene, camera)
    for i, cell in enumerate(doc["cells"]):
        n = int(lab["pixels"].get(i, 0))
        cell["visible"] = n >= MIN_VISIBLE_PX
        cell["pixels"] = n
    if doc["robot"] is not None:
        n = int(lab["pixels"].get(-2, 0))
        doc["robot"]["visible"] = n >= MIN_VISIBLE_PX
        doc["robot"]["tag_visible"] = lab.get("tag_visible", False)
        doc["robot"]["pixels"] = n
    if doc["hand"] is not None:
        doc["hand"]["pixels"] = int(lab["pixels"].get(-3, 0))
    doc["fiducials_visible"] = lab["fiducials_visible"]
    doc["pose"] = pose
    doc["device"] = device.to_json()
    doc["lighting"] = lighting.to_json()
    doc["sensor"] = fx.to_json()
    doc["render"] = {"spp": spp, "supersample": supersample, "denoise": True, "renderer": "mitsuba3 llvm_ad_rgb + OIDN"}
    doc["render_seconds"] = round(result.seconds, 2)
    out_dir.mkdir(parents=True, exist_ok=True)
    jpg, js = out_dir / f"{scene.stem}.jpg", out_dir / f"{scene.stem}.json"
    tmp = jpg.with_name(f".{jpg.name}.{os.getpid()}.tmp")
    tmp.write_bytes(jpeg)
    tmp.replace(jpg)
    tmpj = js.with_name(f".{js.name}.{os.getpid()}.tmp")
    tmpj.write_text(json.dumps(doc, indent=1) + "\n")
    tmpj.replace(js)
    return doc


def render_boards(
    root: Path,
    games: list[str],
    scenes: list[int] | None,
    spp: int,
    supersample: float,
    force: bool,
    on_scene: Callable[[str, float], None] | None = None,
    view: int = 1,
) -> int:
    """Render the board fixtures of ``games`` under ``root`` (``fixtures/boards``), one process, one
    scene at a time; existing scenes are skipped unless ``force``.  Returns how many were rendered.
    ``view`` > 1 renders another picture of each table (:func:`plan_board_scene`)."""
    done = 0
    for game in games:
        if game not in GAMES:
            raise FixtureSetError(f"unknown board fixture game {game!r} (expected one of {', '.join(GAMES)})")
        for index in scenes if scenes is not None else range(SCENES_OF[game]):
            if not 0 <= index < SCENES_OF[game]:
                raise FixtureSetError(f"{game} scene {index!r} is out of range 0-{SCENES_OF[game] - 1}")
            out = root / game
            if game == "quirky" and root.resolve() != FIXTURE_BOARDS:
                # the fixtures' own scenario files, which the scenes (and their truth files) name relative to root
                for toml in (FIXTURE_BOARDS / game).glob("*.toml"):
                    if not (out / toml.name).exists():
                        out.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(toml, out / toml.name)
            if not force and (out / f"scene_{index:03d}.jpg").exists() and (out / f"scene_{index:03d}.json").exists():
                continue
            scene = plan_board_scene(game, index, root, view)
            doc = render_board_scene(scene, out, spp, supersample, view)
            done += 1
            if on_scene is not None:
                on_scene(f"{game} {scene.stem}", float(doc["render_seconds"]))
    return done


# ------------------------------------------------------------------------------------------ checks


def check_board_fixture(doc: dict[str, Any], root: Path) -> list[str]:
    """Consistency of one fixture JSON: cells inside the grid with known kinds; the state valid per the
    engine unless the scene is marked as breaking a rule (then the engine reports exactly the recorded
    problems); Quirky robot cell/heading as the state says."""
    from calibration.boards import BoardSpec as _Spec

    probs: list[str] = []
    name = f"{doc.get('game')}/{doc.get('file')}"
    spec = _Spec.from_json(doc["board"])
    if doc.get("simulated") != "rendered photograph":
        probs.append(f"{name}: not marked as a rendered photograph")
    for c in doc["cells"]:
        if not (0 <= c["x"] < spec.cols and 0 <= c["y"] < spec.rows):
            probs.append(f"{name}: cell {c['x']},{c['y']} outside the {spec.cols}x{spec.rows} grid")
        kind = str(c["piece"])
        if kind not in PIECE_KINDS and not kind.startswith("token:"):
            probs.append(f"{name}: unknown piece kind {kind!r}")
        if spec.game != "gridopolis" and c["level"] != 0:
            probs.append(f"{name}: level {c['level']} on a flat board")
    game = doc["game"]
    state = doc["state"]
    if game == "bandera":
        from engine.bandera import validate_state as bval

        problems = [p.to_json() for p in bval(state)]
        expect = []
        for e in state["board"]:
            expect.append(
                (
                    e["x"],
                    e["y"],
                    "royal_tower" if e.get("flag") else ("tower2" if e["cubes"] == 2 else "cube"),
                    e.get("flag"),
                )
            )
        for p, c in state["characters"].items():
            expect.append((c["x"], c["y"], "character", p))
    elif game == "quirky":
        from engine.quirky.game import validate_state as qval

        scn = load_scenario(doc["scenario"], root)
        problems = [p.to_json() for p in qval(state, scn)]
        expect = [
            (t["at"][0], t["at"][1], QUIRKY_PIECES.get(t["kind"], f"token:{t['kind']}"), None)
            for t in state["tokens"]
            if t.get("at") is not None and not t.get("fixed")
        ]
        r = doc["robot"]
        if r is None or list(r["cell"]) != list(state["robot"]["at"]) or r["heading"] != state["robot"]["facing"]:
            probs.append(f"{name}: robot truth differs from the state's robot")
        elif spec.cell_of_mm(r["x_mm"], r["y_mm"]) != tuple(r["cell"]):
            probs.append(f"{name}: robot at {r['x_mm']},{r['y_mm']} mm is not in its cell {r['cell']}")
    elif game == "gridopolis":
        from engine.gridopolis import validate_state as gval

        problems = [p.to_json() for p in gval(state)]
        expect = [(m["pad"][0], m["pad"][1], "king" if m["king"] else "pawn", m["player"]) for m in state["markers"]]
        expect += [(b["pad"][0], b["pad"][1], "blocker", b["player"]) for b in state["blockers"]]
    else:
        return [*probs, f"{name}: unknown game {game!r}"]
    got = [(c["x"], c["y"], c["piece"], c["colour"]) for c in doc["cells"]]
    if sorted(got, key=str) != sorted(expect, key=str):
        probs.append(f"{name}: cells differ from the state's pieces")
    errors = [p for p in problems if p.get("severity", "error") == "error"]
    if doc["breaks_rules"]:
        if not errors:
            probs.append(f"{name}: marked as breaking a rule, but the engine finds no problem")
        if problems != doc["problems"]:
            probs.append(f"{name}: recorded problems differ from the engine's")
    elif errors:
        probs.append(f"{name}: state breaks a rule: {errors[0]['message']}")
    return probs
