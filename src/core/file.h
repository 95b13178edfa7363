/* Reading a whole file into memory (the scene, mesh and checkpoint readers). See file.c.
 * Not installed. */
#ifndef CM_FILE_H
#define CM_FILE_H

#include <stddef.h>

/* what cm_file_read did; each caller words its own message from it */
typedef enum cmFileStatus {
  CM_FILE_OK = 0,
  CM_FILE_OPEN,        /* the file cannot be opened; errno says why */
  CM_FILE_NOT_REGULAR, /* CM_FILE_REGULAR asked, and the path is a directory, pipe, device */
  CM_FILE_READ,        /* a read failed, e.g. the path is a directory (EISDIR); errno says why */
  CM_FILE_LIMIT,       /* the file has more than `max` bytes */
  CM_FILE_NOMEM        /* no memory for the buffer */
} cmFileStatus;

/* flags of cm_file_read */
/* refuse anything but a regular file (checked before reading, and without waiting: a FIFO with
 * no writer is refused at once) */
#define CM_FILE_REGULAR 1

/* Read the file at path to its end into a new buffer from cm_malloc (*buf, free it with cm_free)
 * holding *len bytes and a terminating 0 after them (not counted), so text can be parsed as a
 * string. Works for pipes and files whose size is not known in advance. Files of more than
 * `max` bytes are refused (SIZE_MAX: no limit). On failure *buf is NULL, errno is that of the
 * failed call for CM_FILE_OPEN and CM_FILE_READ, and *len is 0, except for CM_FILE_NOMEM where
 * it is the size of the regular file that did not fit (the bytes read so far otherwise). */
cmFileStatus cm_file_read(const char* path, size_t max, int flags, char** buf, size_t* len);

/* what the path is, for a message about a refused file: "a directory", "a FIFO (named pipe)",
 * "a character device", "a block device", "a socket", "a regular file", else "not a regular
 * file" (also when it cannot be examined) */
const char* cm_file_kind(const char* path);

#endif
