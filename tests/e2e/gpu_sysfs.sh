#!/usr/bin/env bash
# Fabricate an amdgpu + KFD sysfs tree that the real librocm_smi64 accepts as N GPUs (facts in
# ../shared/notes/amdgpu-sysfs.md). Meant to run inside a private mount namespace, on a tmpfs
# mounted over /sys/class; ROOT defaults to /sys/class.
#
#   gpu_sysfs.sh make N [ROOT]               N GPUs (0-8), values of GPU i below
#   gpu_sysfs.sh set I FILE VALUE [ROOT]      rewrite a value file of GPU I (a path relative to
#                                            the PCI device dir, e.g. gpu_busy_percent or
#                                            hwmon/hwmon0/temp1_input)
#   gpu_sysfs.sh rm I FILE [ROOT]            remove a value file of GPU I
#   gpu_sysfs.sh proc PID I VRAM_BYTES [ROOT] a KFD process PID using GPU I (make first)
#   gpu_sysfs.sh path I [ROOT]               print GPU I's PCI device dir
#
# GPU i (BDF 0000:(3+i):00.0, card i, hwmon i, render minor 128+i, KFD node i+1, gpu_id
# 1000+i): busy 10+i %, power 100+i W (cap 300 W), edge 40+i C, junction 50+i C, memory 60+i C,
# VRAM (1+i) GiB of 64 GiB, GTT 256 MiB of 32 GiB, shader clock 1700 MHz, memory 1600 MHz,
# fan 2000+i RPM (pwm 128 of 255).
set -euo pipefail

bdf() { printf '0000:%02x:00.0' $((3 + $1)); }
devdir() { echo "$2/devs/pci0000:00/$(bdf "$1")"; }

# write FILE VALUE: create parents, then the file
w() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }

make_gpu() {
    local i=$1 root=$2 d hw node
    d=$(devdir "$i" "$root")
    hw=$d/hwmon/hwmon$i
    w "$d/vendor" 0x1002
    w "$d/device" 0x740f
    w "$d/subsystem_vendor" 0x1002
    w "$d/subsystem_device" 0x0c34
    w "$d/vbios_version" "113-D67301-063"
    w "$d/gpu_busy_percent" $((10 + i))
    w "$d/mem_info_vram_total" $((64 << 30))
    w "$d/mem_info_vram_used" $(((1 + i) << 30))
    w "$d/mem_info_vis_vram_total" $((64 << 30))
    w "$d/mem_info_vis_vram_used" $(((1 + i) << 30))
    w "$d/mem_info_gtt_total" $((32 << 30))
    w "$d/mem_info_gtt_used" $((256 << 20))
    printf '0: 500Mhz\n1: 1700Mhz *\n' > "$d/pp_dpm_sclk"
    printf '0: 400Mhz\n1: 1600Mhz *\n' > "$d/pp_dpm_mclk"
    w "$d/drm/card$i/dev" "226:$i"
    ln -s "../../../$(bdf "$i")" "$d/drm/card$i/device"
    # the render node beside the card, as amdgpu makes it (ROCm SMI 6.4 reads the GPU through it)
    w "$d/drm/renderD$((128 + i))/dev" "226:$((128 + i))"
    ln -s "../../../$(bdf "$i")" "$d/drm/renderD$((128 + i))/device"
    w "$hw/name" amdgpu
    w "$hw/temp1_label" edge
    w "$hw/temp1_input" $(((40 + i) * 1000))
    w "$hw/temp2_label" junction
    w "$hw/temp2_input" $(((50 + i) * 1000))
    w "$hw/temp3_label" mem
    w "$hw/temp3_input" $(((60 + i) * 1000))
    w "$hw/power1_average" $(((100 + i) * 1000000))
    w "$hw/power1_cap" 300000000
    w "$hw/power1_cap_max" 300000000
    w "$hw/power1_cap_min" 0
    w "$hw/in0_label" vddgfx
    w "$hw/in0_input" 800
    w "$hw/fan1_input" $((2000 + i))
    w "$hw/pwm1" 128
    w "$hw/pwm1_max" 255
    w "$hw/pwm1_enable" 2
    mkdir -p "$root/drm"
    ln -s "../devs/pci0000:00/$(bdf "$i")/drm/card$i" "$root/drm/card$i"
    ln -s "../devs/pci0000:00/$(bdf "$i")/drm/renderD$((128 + i))" "$root/drm/renderD$((128 + i))"
    # KFD topology node i+1
    node=$root/kfd/kfd/topology/nodes/$((i + 1))
    w "$node/gpu_id" $((1000 + i))
    w "$node/name" gfx90a
    cat > "$node/properties" <<EOF
cpu_cores_count 0
simd_count 416
mem_banks_count 1
caches_count 0
io_links_count 1
cpu_core_id_base 0
simd_id_base 2147487744
max_waves_per_simd 8
lds_size_in_kb 64
gds_size_in_kb 0
num_gws 64
wave_front_size 64
array_count 8
simd_arrays_per_engine 1
cu_per_simd_array 13
simd_per_cu 4
max_slots_scratch_cu 32
gfx_target_version 90010
vendor_id 4098
device_id 29711
location_id $(((3 + i) << 8))
domain 0
drm_render_minor $((128 + i))
hive_id 0
num_sdma_engines 2
num_sdma_xgmi_engines 0
num_cp_queues 24
max_engine_clk_fcompute 1700
local_mem_size 0
fw_version 78
capability 671588992
max_engine_clk_ccompute 2000
EOF
    w "$node/io_links/0/properties" "$(link_props 2 "$((i + 1))" 0 20)"
    mkdir -p "$node/mem_banks/0" "$node/caches"
    w "$node/mem_banks/0/properties" "heap_type 1
size_in_bytes $((64 << 30))
flags 0
width 4096
mem_clk_max 1600"
}

# link_props TYPE FROM TO WEIGHT: an io_links properties file
link_props() {
    printf 'type %s\nversion_major 0\nversion_minor 0\nnode_from %s\nnode_to %s\nweight %s\n' "$@"
    printf 'min_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth 0\n'
    printf 'recommended_transfer_size 0\nflags 1\n'
}

make_tree() {
    local n=$1 root=$2 cpu=$2/kfd/kfd/topology/nodes/0
    mkdir -p "$root/drm" "$root/kfd/kfd/proc" "$root/kfd/kfd/topology/nodes"
    w "$root/kfd/kfd/topology/system_properties" "platform_oem 0
platform_id 0
platform_rev 0"
    w "$root/kfd/kfd/topology/generation_id" 1
    w "$cpu/gpu_id" 0
    w "$cpu/name" ""
    cat > "$cpu/properties" <<EOF
cpu_cores_count 2
simd_count 0
mem_banks_count 1
caches_count 0
io_links_count $n
cpu_core_id_base 0
simd_id_base 0
max_waves_per_simd 0
lds_size_in_kb 0
gds_size_in_kb 0
num_gws 0
wave_front_size 0
array_count 0
simd_arrays_per_engine 0
cu_per_simd_array 0
simd_per_cu 0
max_slots_scratch_cu 0
gfx_target_version 0
vendor_id 0
device_id 0
location_id 0
domain 0
drm_render_minor 0
hive_id 0
num_sdma_engines 0
num_sdma_xgmi_engines 0
num_cp_queues 0
max_engine_clk_ccompute 2000
EOF
    mkdir -p "$cpu/mem_banks/0" "$cpu/caches"
    w "$cpu/mem_banks/0/properties" "heap_type 0
size_in_bytes 8589934592
flags 0
width 64
mem_clk_max 0"
    for ((i = 0; i < n; i++)); do
        w "$cpu/io_links/$i/properties" "$(link_props 2 0 "$((i + 1))" 20)"
        make_gpu "$i" "$root"
    done
}

# A KFD process: PID using GPU I with VRAM bytes (SDMA 5000 us, 26 of the 104 CUs busy). KFD
# lists per-GPU files for every GPU of the machine; the unused ones hold 0.
make_proc() {
    local pid=$1 i=$2 vram=$3 root=$4 p=$4/kfd/kfd/proc/$1 node gid
    w "$p/pasid" $((32768 + pid % 1000))
    w "$p/queues/0/gpuid" $((1000 + i))
    for node in "$root"/kfd/kfd/topology/nodes/*; do
        gid=$(cat "$node/gpu_id")
        [ "$gid" != 0 ] || continue
        if [ "$gid" = $((1000 + i)) ]; then
            w "$p/vram_$gid" "$vram"
            w "$p/sdma_$gid" 5000
            w "$p/stats_$gid/cu_occupancy" 26
        else
            w "$p/vram_$gid" 0
            w "$p/sdma_$gid" 0
            w "$p/stats_$gid/cu_occupancy" 0
        fi
    done
}

cmd=${1:?usage: gpu_sysfs.sh make|set|rm|proc|path ...}
shift
case $cmd in
make) make_tree "$1" "${2:-/sys/class}" ;;
set) w "$(devdir "$1" "${4:-/sys/class}")/$2" "$3" ;;
rm) rm -f "$(devdir "$1" "${3:-/sys/class}")/$2" ;;
proc) make_proc "$1" "$2" "$3" "${4:-/sys/class}" ;;
path) devdir "$1" "${2:-/sys/class}" ;;
*) echo "gpu_sysfs.sh: unknown command $cmd" >&2; exit 2 ;;
esac
