"""3-D pieces of the flat-board games for the fixture renderer (board frame: mm, x east, y north, z up).

Every piece is a :class:`boardside.fixtures_render.scene.BoardPiece`; this module draws the kinds
beyond the original ``cube``/``token``/``robot``:

* ``cube`` (with ``z_mm``: a cube standing on others), ``flag`` (a pole with a banner, on a royal
  tower), ``character`` (a Legends of Cubes character token standing on a cube);
* ``printed_token`` (a Quirky Circuits cardboard token, its top printed from ``texture``);
* ``pad`` / ``post`` / ``link`` / ``pawn`` / ``king`` / ``blocker`` (a Gridopolis grid-set and its
  markers; a king is the flipped pawn, showing its crown side);
* ``tagged_robot`` (a toy robot with the printed ArUco robot tag flat on top; ``texture`` is the tag);
* ``hand`` (a skin-coloured hand and forearm reaching over the board, hovering ``z_mm`` above it).

Each part carries ``label = {"kind": ..., "truth": i}`` so the label pass can tell how much of every
truth entry a picture shows.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.geometry import TriMesh, grid_sheet, rounded_box

if TYPE_CHECKING:
    from boardside.fixtures_render.scene import BoardPiece, SceneSpec

F64 = npt.NDArray[np.float64]

EXTRA_KINDS = (
    "flag",
    "character",
    "printed_token",
    "pad",
    "post",
    "link",
    "pawn",
    "king",
    "blocker",
    "tagged_robot",
    "hand",
)


def _yaw(deg: float) -> F64:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])


def _srgb_to_linear(img: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    s = img.astype(np.float32) / 255.0
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4).astype(np.float32)


def add_texture(spec: SceneSpec, name: str, image_srgb: npt.NDArray[np.uint8]) -> str:
    """Store an sRGB uint8 RGB image as a linear texture (row 0 = the sheet's +y edge)."""
    if name not in spec.textures:
        spec.textures[name] = _srgb_to_linear(image_srgb)
    return name


def add_extra_piece(spec: SceneSpec, i: int, p: BoardPiece, colour: tuple[float, float, float]) -> None:
    """Add piece ``i`` of a kind in :data:`EXTRA_KINDS` (``colour`` already jittered)."""
    from boardside.fixtures_render.scene import Material, Part

    label: dict[str, Any] = {"kind": p.kind, "truth": p.truth, "x_mm": p.x_mm, "y_mm": p.y_mm}
    rot = _yaw(p.heading_deg)
    x, y, z = p.x_mm, p.y_mm, p.z_mm
    plastic = Material("plastic", colour, 0.22)

    def add(name: str, material: Material, mesh: TriMesh | None = None, cyl: Any = None) -> None:
        spec.add(Part(f"piece_{i}_{name}", material, mesh=mesh, cylinder=cyl, label=label))

    if p.kind == "flag":
        h = p.height_mm or 30.0
        add("pole", Material("plastic", (0.7, 0.7, 0.68), 0.3), cyl=((x, y, z), (x, y, z + h), 1.1))
        banner = rounded_box((p.size_mm, 1.2, p.size_mm * 0.7), 0.4, 1)
        add("banner", plastic, banner.transformed(rot, (x + p.size_mm / 2 + 1.0, y, z + h - p.size_mm * 0.35 - 1)))
    elif p.kind == "character":
        r = p.size_mm / 2
        add("base", plastic, cyl=((x, y, z), (x, y, z + 2.5), r))
        body = rounded_box((r * 1.1, r * 0.7, r * 1.6), r * 0.3)
        add("body", plastic, body.transformed(rot, (x, y, z + 2.5 + r * 0.8)))
        head = rounded_box((r * 0.9, r * 0.9, r * 0.9), r * 0.44)
        add("head", Material("plastic", (0.75, 0.62, 0.5), 0.3), head.transformed(rot, (x, y, z + 2.5 + r * 2.05)))
    elif p.kind == "printed_token":
        s, t = p.size_mm, p.height_mm or 2.5
        add(
            "edge",
            Material("paper", (0.55, 0.5, 0.42), 0.6),
            rounded_box((s, s, t), 0.5, 1).transformed(rot, (x, y, z + t / 2)),
        )
        top = grid_sheet(s - 0.6, s - 0.6, 1, 1).transformed(rot, (x, y, z + t + 0.05))
        add("top", Material("paper", (1.0, 1.0, 1.0), 0.5, p.texture), top)
    elif p.kind == "pad":
        s, t = p.size_mm, p.height_mm or 6.0
        add("pad", Material("plastic", colour, 0.3), rounded_box((s, s, t), 1.2, 2).transformed(rot, (x, y, z - t / 2)))
    elif p.kind == "post":
        add("post", Material("plastic", colour, 0.3), cyl=((x, y, z), (x, y, z + p.height_mm), p.size_mm / 2))
    elif p.kind == "link":
        add(
            "link",
            Material("plastic", colour, 0.3),
            rounded_box((p.size_mm, 12.0, 4.0), 0.8, 1).transformed(rot, (x, y, z)),
        )
    elif p.kind in ("pawn", "king"):
        r, h = p.size_mm / 2, p.height_mm or 12.0
        add("body", plastic, rounded_box((2 * r, 2 * r, h), r * 0.95, 4).transformed(np.eye(3), (x, y, z + h / 2)))
        if p.kind == "king":  # the flipped pawn shows its crown side: a gold ring and crown points
            gold = Material("metal", (0.9, 0.7, 0.2), 0.25)
            add(
                "crown", Material("plastic", (0.95, 0.78, 0.2), 0.15), cyl=((x, y, z + h), (x, y, z + h + 2.0), r * 0.6)
            )
            for k in range(5):
                a = 2 * math.pi * k / 5
                px, py = x + r * 0.45 * math.cos(a), y + r * 0.45 * math.sin(a)
                add(
                    f"point{k}",
                    gold,
                    rounded_box((2.4, 2.4, 4.0), 0.8, 1).transformed(np.eye(3), (px, py, z + h + 3.5)),
                )
    elif p.kind == "blocker":
        s = p.size_mm
        add(
            "box",
            Material("plastic", colour, 0.35),
            rounded_box((s, s, s * 0.75), 1.5).transformed(rot, (x, y, z + s * 0.375)),
        )
    elif p.kind == "tagged_robot":
        _robot(spec, i, p, colour, label)
    elif p.kind == "hand":
        _hand(spec, i, p, colour, label)
    else:  # pragma: no cover - guarded by the caller
        raise ValueError(f"unknown board piece kind {p.kind!r}")


def _robot(spec: SceneSpec, i: int, p: BoardPiece, colour: tuple[float, float, float], label: dict[str, Any]) -> None:
    """A small two-wheeled robot; the tag plate's top is at ``height_mm``, the tag's printed top edge
    pointing the heading (``heading_deg``, counter-clockwise from east)."""
    from boardside.fixtures_render.scene import Material, Part

    rot = _yaw(p.heading_deg)
    s, top = p.size_mm, p.height_mm
    x, y = p.x_mm, p.y_mm
    body_h = top - 2.0 - 4.0
    body = rounded_box((s, s * 0.86, body_h), 5.0).transformed(rot, (x, y, 4.0 + body_h / 2))
    spec.add(Part(f"piece_{i}_body", Material("plastic", colour, 0.18), mesh=body, label=label))
    nose = rot @ np.array([s / 2 + 1.0, 0.0, 0.0])
    bumper = rounded_box((4.0, s * 0.6, 8.0), 1.5).transformed(rot, (x + nose[0], y + nose[1], 10.0))
    spec.add(Part(f"piece_{i}_bumper", Material("plastic", (0.05, 0.05, 0.05), 0.3), mesh=bumper, label=label))
    plate_side = s * 0.92
    plate = rounded_box((plate_side, plate_side, 2.0), 0.6, 1).transformed(rot, (x, y, top - 1.0))
    spec.add(Part(f"piece_{i}_plate", Material("paper", (0.9, 0.9, 0.9), 0.5), mesh=plate, label=label))
    # the printed tag: texture top (row 0) = sheet's +y edge; turn the sheet so +y points the heading
    printed = p.tag_mm * 8.0 / 6.0  # the 6-module black square plus a one-module white border
    tag = grid_sheet(printed, printed, 1, 1).transformed(_yaw(p.heading_deg - 90.0), (x, y, top + 0.05))
    spec.add(Part(f"piece_{i}_tag", Material("paper", (1.0, 1.0, 1.0), 0.45, p.texture), mesh=tag, label=label))
    rw = max(7.0, 0.15 * s)  # wheel radius
    for side in (-1, 1):
        c = rot @ np.array([0.0, side * (s * 0.43 + 1.5), 0.0])
        ax = rot @ np.array([0.0, side * 3.0, 0.0])
        p0 = (x + c[0], y + c[1], rw)
        p1 = (p0[0] + ax[0], p0[1] + ax[1], rw)
        spec.add(
            Part(
                f"piece_{i}_wheel{side}",
                Material("plastic", (0.03, 0.03, 0.03), 0.6),
                cylinder=(p0, p1, rw),
                label=label,
            )
        )


def _hand(spec: SceneSpec, i: int, p: BoardPiece, colour: tuple[float, float, float], label: dict[str, Any]) -> None:
    """A hand reaching along ``heading_deg`` (fingertips at ``x_mm, y_mm``), palm ``z_mm`` above the board,
    ``size_mm`` = hand length (wrist to fingertip), with the forearm trailing back and up."""
    from boardside.fixtures_render.scene import Material, Part

    skin = Material("plastic", colour, 0.55)
    rot = _yaw(p.heading_deg)
    L = p.size_mm
    tip = np.array([p.x_mm, p.y_mm, p.z_mm])
    fwd = rot @ np.array([1.0, 0.0, 0.0])
    left = rot @ np.array([0.0, 1.0, 0.0])
    palm_len, palm_w = 0.52 * L, 0.46 * L
    palm_c = tip - fwd * (L - palm_len / 2) + np.array([0.0, 0.0, 6.0])
    palm = rounded_box((palm_len, palm_w, 0.16 * L), 0.06 * L).transformed(rot, palm_c)
    meshes = [palm]
    finger_len = L - palm_len
    for k, (off, scale) in enumerate(((-0.36, 0.8), (-0.12, 0.97), (0.12, 1.0), (0.36, 0.9))):
        fl = finger_len * scale
        c = palm_c + fwd * (palm_len / 2 + fl / 2 - 4.0) + left * (off * palm_w) - np.array([0.0, 0.0, 3.0 + k % 2])
        meshes.append(rounded_box((fl, 0.2 * palm_w, 0.12 * L), 0.055 * L).transformed(rot, c))
    thumb_dir = _yaw(p.heading_deg + 50.0)
    tc = palm_c + left * (palm_w / 2 + 0.1 * L) + fwd * (0.05 * L)
    meshes.append(rounded_box((0.4 * L, 0.12 * L, 0.11 * L), 0.05 * L).transformed(thumb_dir, tc))
    spec.add(Part(f"piece_{i}_hand", skin, mesh=TriMesh.concat(meshes), label=label))
    wrist = palm_c - fwd * (palm_len / 2)
    elbow = wrist - fwd * 260.0 + np.array([0.0, 0.0, 160.0])
    spec.add(Part(f"piece_{i}_arm", skin, cylinder=(tuple(elbow), tuple(wrist), 0.22 * L), label=label))
