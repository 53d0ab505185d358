"""What the test tiers share: the moto stack and its fixtures, real HTTP API v2 events, the
local server, the sam build, Hypothesis profiles."""
