/* The Perfetto protobuf schema as rocsys-top uses it: field numbers (PF_<MESSAGE>_<FIELD>) and
 * enum values, shared by the writer (record/perfetto_write*.c) and the reader
 * (record/perfetto_read*.c). Checked against google/perfetto's protos/perfetto/trace/
 * (trace.proto, trace_packet.proto, trace_packet_defaults.proto, clock_snapshot.proto,
 * track_event/{track_descriptor,process_descriptor,thread_descriptor,counter_descriptor,
 * track_event,debug_annotation}.proto, interned_data/interned_data.proto,
 * profiling/{profile_common,profile_packet}.proto) and common/builtin_clock.proto; see
 * /work/shared/notes/perfetto.md and docs/formats.md. Numbers never change in Perfetto. */
#ifndef ROCSYS_RECORD_PERFETTO_PROTO_H
#define ROCSYS_RECORD_PERFETTO_PROTO_H

/* Trace: the file is nothing but back-to-back Trace.packet records. */
enum { PF_TRACE_PACKET = 1 };

/* TracePacket */
enum {
    PF_PACKET_CLOCK_SNAPSHOT = 6,     /* ClockSnapshot */
    PF_PACKET_TIMESTAMP = 8,          /* uint64 */
    PF_PACKET_SEQUENCE_ID = 10,       /* trusted_packet_sequence_id */
    PF_PACKET_TRACK_EVENT = 11,       /* TrackEvent */
    PF_PACKET_INTERNED_DATA = 12,     /* InternedData */
    PF_PACKET_SEQUENCE_FLAGS = 13,    /* PF_SEQ_* bits */
    PF_PACKET_COMPRESSED = 50,        /* compressed_packets: zlib of a Trace */
    PF_PACKET_TIMESTAMP_CLOCK = 58,   /* timestamp_clock_id */
    PF_PACKET_DEFAULTS = 59,          /* TracePacketDefaults */
    PF_PACKET_TRACK_DESCRIPTOR = 60,  /* TrackDescriptor */
    PF_PACKET_PERF_SAMPLE = 66,       /* PerfSample */
    PF_PACKET_FIRST_ON_SEQUENCE = 87, /* first_packet_on_sequence */
};

/* TracePacket.SequenceFlags */
enum {
    PF_SEQ_CLEARED = 1, /* SEQ_INCREMENTAL_STATE_CLEARED */
    PF_SEQ_NEEDS = 2,   /* SEQ_NEEDS_INCREMENTAL_STATE */
};

/* TracePacketDefaults */
enum { PF_DEFAULTS_TIMESTAMP_CLOCK = 58 };

/* ClockSnapshot and its Clock */
enum { PF_SNAPSHOT_CLOCKS = 1 };
enum {
    PF_CLOCK_ID = 1,
    PF_CLOCK_TIMESTAMP = 2,
    PF_CLOCK_INCREMENTAL = 3, /* is_incremental */
    PF_CLOCK_UNIT_NS = 4,     /* unit_multiplier_ns */
};

/* BuiltinClock ids, and the range of sequence-scoped clocks (64..127) */
enum {
    PF_BUILTIN_MONOTONIC = 3,
    PF_BUILTIN_BOOTTIME = 6, /* the trace's default time */
    PF_CLOCK_SEQ_FIRST = 64,
    PF_CLOCK_SEQ_COUNT = 64,
};

/* TrackDescriptor */
enum {
    PF_TRACK_UUID = 1,
    PF_TRACK_NAME = 2,
    PF_TRACK_PROCESS = 3, /* ProcessDescriptor */
    PF_TRACK_THREAD = 4,  /* ThreadDescriptor */
    PF_TRACK_PARENT_UUID = 5,
    PF_TRACK_COUNTER = 8, /* CounterDescriptor */
};

/* ProcessDescriptor */
enum {
    PF_PROCESS_PID = 1,
    PF_PROCESS_NAME = 6,   /* process_name */
    PF_PROCESS_LABELS = 8, /* process_labels (repeated string) */
};

/* ThreadDescriptor */
enum {
    PF_THREAD_PID = 1,
    PF_THREAD_TID = 2,
    PF_THREAD_NAME = 5, /* thread_name */
};

/* CounterDescriptor and its Unit */
enum {
    PF_COUNTER_UNIT = 3,
    PF_COUNTER_UNIT_NAME = 6,
};
enum {
    PF_UNIT_TIME_NS = 1,
    PF_UNIT_SIZE_BYTES = 3,
};

/* TrackEvent and its Type */
enum {
    PF_EVENT_DEBUG_ANNOTATIONS = 4,
    PF_EVENT_TYPE = 9,
    PF_EVENT_TRACK_UUID = 11,
    PF_EVENT_CATEGORIES = 22,
    PF_EVENT_NAME = 23,
    PF_EVENT_COUNTER_VALUE = 30,        /* int64 */
    PF_EVENT_DOUBLE_COUNTER_VALUE = 44, /* double (fixed 64-bit) */
    PF_EVENT_FLOW_IDS = 47,             /* fixed64 */
    PF_EVENT_TERMINATING_FLOW_IDS = 48, /* fixed64 */
};
enum {
    PF_TYPE_SLICE_BEGIN = 1,
    PF_TYPE_SLICE_END = 2,
    PF_TYPE_INSTANT = 3,
    PF_TYPE_COUNTER = 4,
};

/* DebugAnnotation */
enum {
    PF_ANNOTATION_UINT = 3,   /* uint_value */
    PF_ANNOTATION_INT = 4,    /* int_value */
    PF_ANNOTATION_STRING = 6, /* string_value */
    PF_ANNOTATION_NAME = 10,
};

/* InternedData */
enum {
    PF_INTERNED_FUNCTION_NAMES = 5, /* InternedString */
    PF_INTERNED_FRAMES = 6,         /* Frame */
    PF_INTERNED_CALLSTACKS = 7,     /* Callstack */
    PF_INTERNED_MAPPING_PATHS = 17, /* InternedString */
    PF_INTERNED_MAPPINGS = 19,      /* Mapping */
};

/* InternedString, Mapping, Frame, Callstack (profile_common.proto); repeated ids are not packed */
enum {
    PF_STRING_IID = 1,
    PF_STRING_STR = 2,
};
enum {
    PF_MAPPING_IID = 1,
    PF_MAPPING_PATH_STRING_IDS = 7,
};
enum {
    PF_FRAME_IID = 1,
    PF_FRAME_FUNCTION_NAME_ID = 2,
    PF_FRAME_MAPPING_ID = 3,
    PF_FRAME_REL_PC = 4,
};
enum {
    PF_CALLSTACK_IID = 1,
    PF_CALLSTACK_FRAME_IDS = 2, /* root first, leaf last */
};

/* PerfSample */
enum {
    PF_SAMPLE_PID = 2,
    PF_SAMPLE_TID = 3,
    PF_SAMPLE_CALLSTACK_IID = 4,
};

#endif
