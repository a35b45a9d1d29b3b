// Words the run-control tools (continue, step, pause, wait) share.

export const notes = 'Resuming either CPU runs both (one emulation).';
