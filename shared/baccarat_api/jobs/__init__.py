"""Scheduled and deploy-time jobs: the auto-settlement sweep and tier seeding."""
