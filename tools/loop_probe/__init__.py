"""The loop probe (sitecustomize.py here) and its reader (`python -m tools.loop_probe FILES`)."""
