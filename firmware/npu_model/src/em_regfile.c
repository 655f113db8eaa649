/* The register file: which commands exist, their names, the addresses base registers hold and
   the regions those addresses fall in. */
#include "em_internal.h"

static const em_opname_entry *find_command(int arch, int kind, unsigned code) {
    const em_arch *layout = em_arch_for(arch);
    const em_opname_entry *table = layout->commands;
    size_t i, count = layout->command_count;
    for (i = 0; i < count; i++)
        if (table[i].kind == kind && table[i].code == code) return &table[i];
    return NULL;
}

const char *em_opname(int arch, int kind, unsigned code) {
    const em_opname_entry *entry = find_command(arch, kind, code);
    return entry ? entry->name : "unknown command";
}

int em_known_command(int arch, int kind, unsigned code) { return find_command(arch, kind, code) != NULL; }

uint64_t em_base_of(uint64_t word) {
    /* 32-bit data plus the upper address bits U65 keeps in the param (40-bit addresses). */
    return (word >> 32) | (((word >> 16) & 0xffu) << 32);
}

uint8_t *em_address(em_state *s, unsigned region, uint64_t offset, uint64_t length, const char *what) {
    if ((int)region >= s->regions) {
        em_fail(s, NPU_MODEL_BAD_ADDRESS, "%s uses region %u but the driver gave %d regions", what, region,
                s->regions);
        return NULL;
    }
    if (offset + length > s->size[region]) {
        em_fail(s, NPU_MODEL_BAD_ADDRESS, "%s reads/writes %u bytes at offset %x of region %u (size %u)", what,
                (unsigned)length, (unsigned)offset, region, (unsigned)s->size[region]);
        return NULL;
    }
    return (uint8_t *)(uintptr_t)(s->base[region] + offset);
}
