/** The message of a run whose instance went away while it ran (its lease expired): recorded failed, code `lost`. */
export const LOST_RUN_MESSAGE = 'The instance running it stopped before the run ended';
