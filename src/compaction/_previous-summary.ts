/**
 * The label a transcript puts before a previous summary, which the extractive summariser reads
 * back.
 *
 * @module
 */

/** The label of a previous summary in a transcript. */
export const PREVIOUS_SUMMARY = '[Previous summary]:'
