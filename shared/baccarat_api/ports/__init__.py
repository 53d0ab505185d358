"""What the service needs from the outside world: the repository and vault protocols and the
records they speak. Standard library only; no adapter is imported here."""
