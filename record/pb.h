/* Protocol buffers encoding: a growable byte buffer and the field writers the recording's
 * protobuf files (trace.pftrace, profile.pb.gz) are made of, plus a reader of fields for the
 * project's own decoders. Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited. */
#ifndef ROCSYS_RECORD_PB_H
#define ROCSYS_RECORD_PB_H

#include <stddef.h>
#include <stdint.h>

/* The tag of field (number) with wire type wire, as a varint's value. */
#define PB_TAG(field, wire) ((uint64_t)(field) << 3 | (wire))

/* A growable byte buffer holding protobuf encoding (zero-initialized = empty). */
struct pb {
    uint8_t *p;
    size_t n, cap;
};

/* Bytes of v as a varint. */
size_t pb_varint_len(uint64_t v);
/* v as a varint at p (room for 10 bytes); returns its length. */
size_t pb_put_varint(uint8_t *p, uint64_t v);
/* Make room for more bytes. */
void pb_reserve(struct pb *b, size_t more);
/* A bare varint. */
void pb_varint(struct pb *b, uint64_t v);
/* A varint field: tag (field, wire type 0) and value. */
void pb_uint(struct pb *b, uint32_t field, uint64_t v);
/* A length-delimited field. */
void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t n);
/* A fixed 64-bit field (little-endian). */
void pb_fixed64(struct pb *b, uint32_t field, uint64_t v);
/* Append src's bytes. */
void pb_append(struct pb *b, const struct pb *src);
/* Free the buffer's memory (it is empty again). */
void pb_free(struct pb *b);

/* A field read by pb_next: its number, wire type, and value (wire types 0 and 1) or bytes. */
struct pb_field {
    uint32_t field;
    int wire;
    uint64_t v;
    const uint8_t *data;
    size_t len;
};

/* The next field of the message at *p (up to end): 1 and *p moved past it, 0 at the end, -1
 * when the bytes are not a well-formed field (truncated, wire type 3-5 or 6-7). */
int pb_next(const uint8_t **p, const uint8_t *end, struct pb_field *f);
/* A varint at *p (up to end): 0 and *p moved past it, or -1 when truncated or too long. */
int pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

#endif
