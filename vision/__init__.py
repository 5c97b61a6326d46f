"""OpenCV detection and state reconstruction (locate -> classify -> reconstruct -> validate)."""
