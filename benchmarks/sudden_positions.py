"""Command-line wrapper: the code lives in `gomocup_bot.experiments.sudden_positions` (it ships with the package,
so `gomocup-bot experiment sudden` works from an install as well as from a checkout)."""
import sys

from gomocup_bot.experiments.sudden_positions import main

if __name__ == "__main__":
    sys.exit(main())
