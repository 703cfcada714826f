"""Wrong calls of tour that mypy catches against its stub."""
import tour

tour.Hash(3)
tour.Within(1.0, "a", 2.0)
s: str = tour.Mean(b"")
