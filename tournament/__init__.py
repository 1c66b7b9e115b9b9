"""Local tournament manager and ladder for Gomocup brains."""
