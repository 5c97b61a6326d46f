"""``boardside fixtures``: render and check the recorded image fixtures (rendered photographs).

The renderer needs the optional ``[render]`` extra (Mitsuba 3 + OIDN); listing and checking
sets does not.  See docs/fixtures.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from boardside.io import emit_json

NAME = "fixtures"
app = typer.Typer(
    help="Recorded image fixtures: path-traced photographs of table scenes with exact ground truth (docs/fixtures.md).",
    no_args_is_help=True,
    add_completion=False,
)

DEFAULT_ROOT = Path("fixtures")


def _parse_scenes(text: str | None) -> list[int] | None:
    from boardside.fixtures_render.errors import FixtureSetError

    if text is None:
        return None
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                a, b = part.split("-", 1)
                out.extend(range(int(a), int(b) + 1))
            elif part:
                out.append(int(part))
        except ValueError:
            raise FixtureSetError(f"--scenes expects numbers and ranges like '0-4,7', got {text!r}") from None
    return out


@app.command("list")
def list_sets(
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Fixtures directory."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the known fixture sets, their seeds and how many views are rendered."""
    from boardside.fixtures_render.sets import SETS

    rows: list[dict[str, Any]] = []
    for s in SETS.values():
        d = root / s.name
        views = len(list(d.glob("scene_*/*.jpg"))) if d.exists() else 0
        rows.append({"set": s.name, "kind": s.kind, "seed": s.seed, "scenes": s.count, "views_rendered": views})
    if as_json:
        emit_json({"sets": rows})
        return
    for r in rows:
        typer.echo(
            f"{r['set']:14s} {r['kind']:12s} seed {r['seed']:<9d} {r['scenes']:3d} scenes, "
            f"{r['views_rendered']} views rendered"
        )


@app.command("render")
def render_cmd(
    set_name: str = typer.Argument(..., metavar="SET", help="Set to render: ctrl, calib_webcam, calib_phone."),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Fixtures directory."),
    scenes: str | None = typer.Option(None, "--scenes", help="Only these scene numbers, e.g. '0-4,7'."),
    spp: int = typer.Option(6, "--spp", min=1, max=4096, help="Path-tracing samples per pixel (before denoising)."),
    supersample: float = typer.Option(
        0.75, "--supersample", min=0.3, max=3.0, help="Render resolution relative to the 1280x720 output."
    ),
    force: bool = typer.Option(False, "--force", help="Re-render views that already exist."),
    low_views: bool = typer.Option(
        False, "--low-views", help="CTRL: also picture each side from low down (4 more pictures per scene, "
        "px_low.jpg ...; the five are unchanged). For measurement: benchmarks/ctrl_vision.py --views all."
    ),
) -> None:
    """Render a set from its seed (skips views already rendered, so it resumes), then write its manifest."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from boardside.fixtures_render.mitsuba_backend import load_mitsuba
    from boardside.fixtures_render.sets import RenderSettings, get_set, render_set

    sdef = get_set(set_name)
    only = _parse_scenes(scenes)
    load_mitsuba()
    n_views = len(only or range(sdef.count)) * ((9 if low_views else 5) if sdef.kind == "ctrl" else 1)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ) as progress:
        task = progress.add_task(f"rendering {sdef.name}", total=n_views)

        def on_view(label: str, seconds: float) -> None:
            progress.update(task, advance=1, description=f"{sdef.name} {label} ({seconds:.0f} s)")

        done = render_set(
            sdef, root, RenderSettings(spp=spp, supersample=supersample), only, on_view, force, low_views
        )
    typer.echo(f"rendered {done} views; manifest: {root / sdef.name / 'manifest.json'}")


@app.command("manifest")
def manifest_cmd(
    set_name: str = typer.Argument(..., metavar="SET"),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Fixtures directory."),
) -> None:
    """Rewrite a set's manifest.json from the per-view truth files already on disk."""
    from boardside.fixtures_render.sets import RenderSettings, get_set, write_manifest

    m = write_manifest(get_set(set_name), root, RenderSettings())
    typer.echo(f"{sum(len(s['views']) for s in m['scenes'])} views in {len(m['scenes'])} scenes")


@app.command("check")
def check_cmd(
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Fixtures directory."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Check every manifest: each image decodes at 1280x720; each CTRL state validates and its stored
    scores equal the engine's.  Exit 1 when a problem is found."""
    from boardside.fixtures_render.check import check_root

    problems, counts = check_root(root)
    if as_json:
        emit_json({"problems": problems, **counts})
    else:
        for p in problems:
            typer.echo(p)
        typer.echo(f"{counts['images']} images in {counts['sets']} sets checked, {len(problems)} problems")
    if problems:
        raise typer.Exit(1)


@app.command("contact-sheet")
def contact_sheet_cmd(
    output: Path = typer.Option(Path("docs/fixtures_contact_sheet.jpg"), "-o", "--output"),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Fixtures directory."),
    count: int = typer.Option(24, "--count", min=1, max=200, help="How many images."),
) -> None:
    """Draw a contact sheet (a grid of fixture images with their scene, side and lighting)."""
    from boardside.fixtures_render.check import contact_sheet

    n = contact_sheet(root, output, count)
    typer.echo(f"wrote {output} ({n} images)")


@app.command("sample-board")
def sample_board_cmd(
    output: Path = typer.Option(Path("fixtures/boards/sample_board.jpg"), "-o", "--output"),
    spp: int = typer.Option(6, "--spp", min=1, max=4096),
    seed: int = typer.Option(4, "--seed"),
) -> None:
    """Render the sample flat-board scene (printed board with fiducials, cube stacks, tokens, a robot)."""
    from boardside.fixtures_render.boards import render_sample_board

    truth = render_sample_board(output, spp=spp, seed=seed)
    typer.echo(f"wrote {output} and {output.with_suffix('.json')} ({len(truth['pieces'])} pieces)")


@app.command("relabel")
def relabel_cmd(
    set_name: str = typer.Argument(..., metavar="SET"),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Fixtures directory."),
    supersample: float = typer.Option(0.75, "--supersample", min=0.3, max=3.0),
) -> None:
    """Recompute the label-pass truth (per-face visibility, ChArUco occlusion) of a rendered set
    without re-rendering its images."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from boardside.fixtures_render.mitsuba_backend import load_mitsuba
    from boardside.fixtures_render.sets import RenderSettings, get_set, relabel_set

    sdef = get_set(set_name)
    load_mitsuba()
    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}"), TimeElapsedColumn()
    ) as progress:
        task = progress.add_task(f"relabelling {sdef.name}", total=None)

        def on_view(label: str, seconds: float) -> None:
            progress.update(task, advance=1, description=f"{sdef.name} {label} ({seconds:.1f} s)")

        n = relabel_set(sdef, root, RenderSettings(supersample=supersample), on_view)
    typer.echo(f"relabelled {n} views; manifest: {root / sdef.name / 'manifest.json'}")


@app.command("render-boards")
def render_boards_cmd(
    games: list[str] | None = typer.Argument(None, help="Games to render: bandera, quirky, gridopolis (default all)."),
    root: Path = typer.Option(DEFAULT_ROOT / "boards", "--root", help="Board fixtures directory."),
    scenes: str | None = typer.Option(None, "--scenes", help="Only these scene numbers, e.g. '0-4,7'."),
    spp: int = typer.Option(6, "--spp", min=1, max=4096, help="Path-tracing samples per pixel (before denoising)."),
    supersample: float = typer.Option(
        0.75, "--supersample", min=0.3, max=3.0, help="Render resolution relative to the 1280x720 output."
    ),
    force: bool = typer.Option(False, "--force", help="Re-render scenes that already exist."),
    view: int = typer.Option(1, "--view", min=1, max=9, help="2 or more: another picture of the same tables (same "
                             "pieces, light and camera device; the camera and any hand elsewhere), written under "
                             "--root, which must then not be the fixtures' own directory."),
) -> None:
    """Render the board-reading fixtures (fixtures/boards/<game>/scene_NNN.jpg + .json) from their seeds:
    positions played by the engines, printed boards, pieces, hands, light, cameras (docs/boards.md).
    Existing scenes are skipped (an interrupted run resumes); one scene is rendered at a time.
    With --view 2 the same tables are pictured again from elsewhere (benchmarks/board_two_pictures.py)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from boardside.fixtures_render.board_sets import GAMES, SCENES_OF, render_boards
    from boardside.fixtures_render.errors import FixtureSetError
    from boardside.fixtures_render.mitsuba_backend import load_mitsuba

    chosen = [g.lower() for g in games] if games else list(GAMES)
    for g in chosen:
        if g not in GAMES:
            raise FixtureSetError(f"unknown board fixture game {g!r} (expected one of {', '.join(GAMES)})")
    if view > 1 and root.resolve() == (DEFAULT_ROOT / "boards").resolve():
        raise FixtureSetError(f"--view {view} renders other pictures of the fixtures' tables: give another --root "
                              f"than {str(root)!r} (the fixtures would be overwritten)")
    only = _parse_scenes(scenes)
    for i in only or []:
        if not 0 <= i < max(SCENES_OF[g] for g in chosen):
            raise FixtureSetError(f"scene {i!r} is out of range 0-{max(SCENES_OF[g] for g in chosen) - 1}")
    load_mitsuba()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    ) as progress:
        task = progress.add_task("rendering board scenes", total=sum(len(only or range(SCENES_OF[g])) for g in chosen))

        def on_scene(label: str, seconds: float) -> None:
            progress.update(task, advance=1, description=f"{label} ({seconds:.0f} s)")

        done = render_boards(root, chosen, only, spp, supersample, force, on_scene, view)
    typer.echo(f"rendered {done} board scenes under {root}")


@app.command("render-followed")
def render_followed_cmd(
    name: str = typer.Argument("game_000", help="The game's directory name under --root."),
    root: Path = typer.Option(DEFAULT_ROOT / "ctrl_followed", "--root", help="Followed games directory."),
    seed: int = typer.Option(20261127, "--seed", help="The game and its look (pieces, light, camera) come from it."),
    players: int = typer.Option(4, "--players", "-p", min=2, max=4, help="2 (variant), 3 or 4 players."),
    every: int = typer.Option(0, "--every", min=0, help="Photograph after every N turns (0: once a round)."),
    spp: int = typer.Option(6, "--spp", min=1, max=4096, help="Path-tracing samples per pixel (before denoising)."),
    low_views: bool = typer.Option(
        False, "--low-views", help="Also picture each side from low down at every position (4 more pictures, "
        "px_low.jpg ...; the five are unchanged, so a game rendered without them can be completed). For "
        "measurement: benchmarks/ctrl_follow.py --views all."
    ),
) -> None:
    """Render a followed CTRL game: a random legal game photographed (five views; nine with --low-views)
    at the set-up and after every round (or N turns), same pieces, light and camera throughout --
    SIMULATED pictures for 'ctrl follow' and benchmarks/ctrl_follow.py.  Views already rendered are kept
    (it resumes)."""
    import json as _json
    import random as _random

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from boardside.fixtures_render.followed import play_game, render_followed
    from boardside.fixtures_render.mitsuba_backend import load_mitsuba
    from boardside.fixtures_render.sets import RenderSettings

    truth = root / name / "game.json"
    shots = (_json.loads(truth.read_text())["shots"] if truth.exists()
             else play_game(players, _random.Random(seed), every)[1])
    load_mitsuba()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), TimeRemainingColumn()) as progress:
        task = progress.add_task(f"rendering {name}", total=(9 if low_views else 5) * len(shots))

        def on_view(label: str, seconds: float) -> None:
            progress.update(task, advance=1, description=f"{label} ({seconds:.0f} s)")

        done = render_followed(root, name, seed, players, every, RenderSettings(spp=spp), on_view, low_views)
    typer.echo(f"rendered {done} views of {len(shots)} positions under {root / name}")
