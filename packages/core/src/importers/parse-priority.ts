/**
 * The nice value of a parse-pool thread (0 is the process's; 19 the lowest): low enough that the
 * request thread wins the CPU whenever both want it (a weight of 110 against 1,024), high enough
 * that a parse on a busy host still moves.
 */
export const PARSE_THREAD_NICE = 10;
