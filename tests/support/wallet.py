"""The operator's server beside the table page, for the browser tests: the example's own wallet
(``examples/operator_wallet.py``: it opens running tables, seats the players with their wallet
balances, mints their tokens, follows each feed and reports the balances after each settlement),
so the table page's test runs the code an operator copies. The test reads what it settled
(:attr:`Wallet.settled`) to know what the pages must show. Importable from every test folder
(``tests/`` is on pytest's ``pythonpath``; ``examples/`` is put on ``sys.path`` by
``tests/conftest.py``)."""

from __future__ import annotations

from operator_wallet import Player, Wallet, WalletError

__all__ = ["Player", "Wallet", "WalletError"]
