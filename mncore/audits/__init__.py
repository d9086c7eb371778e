"""Audits of a log: verification (whole or streamed), snapshots, dispute bundles, export seals."""
