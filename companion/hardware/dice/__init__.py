"""The dice box: wire protocol (protocol.py), reader (link.py), virtual box (sim.py), roll recording
shared by every dice source (rolls.py), and the builder that picks the real box or the virtual one."""
