"""The evaluation's training: self-play game records, features, and the fit of the pattern tables."""
