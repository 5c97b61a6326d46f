"""Motion programs for the robot: parse a CLI list, generate random walks (tests, benchmarks)."""

from __future__ import annotations

import itertools
import random

from engine.core import InvalidMoveError
from engine.motion import Heading, Motion, MotionKind, Pose


def parse_motions(text: str) -> list[Motion]:
    """``"F>0,1,N L>0,1,W"`` (spaces or commas between motions are fine) -> motions.

    Each motion's expected pose must follow from the previous one (checked), so a typo
    is caught before the robot moves.
    """
    items = [t for t in text.replace(";", " ").split() if t]
    if not items:
        raise InvalidMoveError(f"no motions in {text!r} (expected e.g. 'F>0,1,N L>0,1,W')")
    motions = [Motion.parse(t) for t in items]
    for prev, cur in itertools.pairwise(motions):
        want = after(prev.expected, cur)
        if want != cur.expected:
            raise InvalidMoveError(
                f"motion {str(cur)!r} cannot follow {str(prev)!r}: from {prev.expected} it ends at {want}"
            )
    return motions


def after(pose: Pose, motion: Motion) -> Pose:
    """The pose after ``motion`` starting at ``pose`` (bumps, picks and drops do not move)."""
    h = pose.heading
    code = motion.kind.value
    if code == "J" and motion.arg.isdigit():
        n = int(motion.arg)
        return Pose(pose.x + h.dx * n, pose.y + h.dy * n, h)
    if code == "S":
        d = Heading.parse(motion.arg)
        return Pose(pose.x + d.dx, pose.y + d.dy, h)
    if motion.kind is MotionKind.FORWARD:
        return Pose(pose.x + h.dx, pose.y + h.dy, h)
    if motion.kind is MotionKind.BACKWARD:
        return Pose(pose.x - h.dx, pose.y - h.dy, h)
    if motion.kind is MotionKind.TURN_LEFT:
        return Pose(pose.x, pose.y, h.left())
    if motion.kind is MotionKind.TURN_RIGHT:
        return Pose(pose.x, pose.y, h.right())
    return pose


def random_walk(rng: random.Random, n: int, start: Pose | None = None, size: int = 8) -> list[Motion]:
    """``n`` random motions staying on a ``size`` x ``size`` board (for tests and benchmarks)."""
    pose = start or Pose.parse("0,0,N")
    out: list[Motion] = []
    kinds = [k for k in MotionKind if k.value in ("F", "B", "L", "R", "XF", "XB", "P", "D")]
    while len(out) < n:
        kind = rng.choice(kinds)
        arg = "token" if kind in (MotionKind.PICK, MotionKind.DROP) else ""
        nxt = after(pose, Motion(kind, pose, arg))
        if not (0 <= nxt.x < size and 0 <= nxt.y < size):
            continue
        out.append(Motion(kind, nxt, arg))
        pose = nxt
    return out
