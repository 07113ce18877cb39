"""The simulation kernel: the event loop, the machine as jobs hold it, unit outages, the operator's
actions and the recorders that listen to a run (:class:`meshsim.engine.kernel.simulation.Simulation`
is their façade)."""
