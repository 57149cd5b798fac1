/**
 * The pattern of path params, apart from the schemas so the light entry (validators,
 * error messages) can name it without loading TypeBox.
 */

/**
 * A file system path in params: no NUL byte and no unpaired UTF-16 surrogate, which no
 * file name can hold and the runtime would reject deep inside a handler. Matched with
 * ajv's unicode regular expressions, so a surrogate pair (an emoji) is one code point.
 */
export const PATH_PATTERN = "^[^\\u0000\\uD800-\\uDFFF]*$";

/** The message `invalidParams` gives for a string that breaks `PATH_PATTERN`. */
export const PATH_PATTERN_MESSAGE = "must be a path without NUL bytes or unpaired UTF-16 surrogates";

/**
 * A string the server hands to the operating system as an argument (a shell command):
 * no NUL byte, which no argument can hold and the runtime would reject with a TypeError.
 */
export const NO_NUL_PATTERN = "^[^\\u0000]*$";

/** The message `invalidParams` gives for a string that breaks `NO_NUL_PATTERN`. */
export const NO_NUL_PATTERN_MESSAGE = "must not contain NUL bytes";
