"""Camera intrinsics, printable play mats and targets, pose, and the colour model."""
