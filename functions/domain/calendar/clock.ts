/** The current instant, passed to the domain instead of reading the system time. */
export type Clock = () => Date;
