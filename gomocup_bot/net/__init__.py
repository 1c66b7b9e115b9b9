"""The brain over a network: `gomocup-bot serve` (`server`, with its per-session `guard`,
admission `limits`, `stats` counters and the reply `traffic` tracker) and `gomocup-bot connect`
(`relay`, a stdio brain that forwards to a remote server).
"""
