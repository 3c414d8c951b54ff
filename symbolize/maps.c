/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Runtime mappings and ELF files: the only place where a runtime (abs)
 * address, or an offset from a load base, becomes an ELF virtual address
 * (vaddr) and back.
 *
 * The loader maps each PT_LOAD segment at page granularity: the mapping
 * starts at bias + (p_vaddr rounded down to a page), from the file offset
 * p_offset rounded down to a page. So for the segment a mapping shows,
 * start - pgoff = bias + p_vaddr - p_offset, whatever the page size and
 * whatever the kind of file (executable, PIE, shared library, an
 * executable started through ld.so), and
 *
 *   bias = start - pgoff - (p_vaddr - p_offset).
 *
 * This is Go pprof's elfexec.GetBase for ET_EXEC and ET_DYN alike. The
 * segment is the one whose page-rounded file offset is the mapping's;
 * its page-rounded file size must equal the mapping's length, which is
 * how a file that is not the one the profile ran is recognised when no
 * build-id was recorded.
 *
 * A pprof profile's mapping may show several adjacent segments as one
 * (Go's pprof merges the lines of /proc/self/maps that continue each
 * other in the file): for such a mapping (sp_map.merged), when no segment
 * fits alone, the segment is the executable one whose file range lies
 * inside the mapping's, and the same formula holds as long as the
 * segments before it in the mapping keep the same p_vaddr - p_offset.
 */
#include "internal.h"

#include <gelf.h>

#include "symprof/profile.h"

static const uint64_t page_sizes[] = {4096, 16384, 65536};

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Does segment l, mapped with page size psz, give mapping m? */
static int fits(const struct sp_map *m, const struct sp_elf_load *l, uint64_t psz)
{
	uint64_t in_page = l->vaddr & (psz - 1), len;

	if ((l->offset & ~(psz - 1)) != m->pgoff || (l->offset & (psz - 1)) != in_page)
		return 0;
	len = m->end - m->start;
	return len == round_up(in_page + l->filesz, psz) ||
	       len == round_up(in_page + l->memsz, psz);
}

/* Does executable segment l lie in merged mapping m (see above)? */
static int inside(const struct sp_map *m, const struct sp_elf_load *l,
		  const struct sp_elf_load *loads, size_t nloads)
{
	uint64_t len = m->end - m->start, delta = l->vaddr - l->offset;
	size_t i;

	if (!(l->flags & PF_X) || l->offset < m->pgoff || l->offset - m->pgoff >= len ||
	    l->offset + l->filesz - m->pgoff > len)
		return 0;
	for (i = 0; i < nloads; i++)
		if (loads[i].offset >= m->pgoff && loads[i].offset < l->offset &&
		    loads[i].vaddr - loads[i].offset != delta)
			return 0;
	return 1;
}

int sp_map_bias(const struct sp_map *m, const struct sp_elf_load *loads, size_t nloads,
		uint64_t *bias)
{
	int pass;
	size_t i, k;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nloads; i++) {
			const struct sp_elf_load *l = &loads[i];

			if ((pass == 0) != ((l->flags & PF_X) != 0))
				continue;
			for (k = 0; k < sizeof(page_sizes) / sizeof(page_sizes[0]); k++) {
				if (fits(m, l, page_sizes[k])) {
					*bias = m->start - m->pgoff - (l->vaddr - l->offset);
					return 0;
				}
			}
		}
	}
	for (i = 0; m->merged && i < nloads; i++) {
		if (inside(m, &loads[i], loads, nloads)) {
			*bias = m->start - m->pgoff - (loads[i].vaddr - loads[i].offset);
			return 0;
		}
	}
	return -1;
}

uint64_t sp_map_frame_abs(const struct sp_frame *fr)
{
	return fr->addr - ((fr->flags & SP_FRAME_RETURN_ADDR) && fr->addr ? 1 : 0);
}

/*
 * IgProf's offsets are from dladdr's dli_fbase, where the file's first
 * byte is mapped: vaddr = offset + the first PT_LOAD's p_vaddr - p_offset,
 * igprof-analyse's `objdump -p` rule (0 for PIE and shared objects,
 * 0x400000 for a classic x86-64 executable).
 */
int sp_map_base_offset_to_vaddr(uint64_t off, const struct sp_elf_load *loads, size_t nloads,
				uint64_t *vaddr)
{
	if (!nloads)
		return -1;
	*vaddr = off + (loads[0].vaddr - loads[0].offset);
	return 0;
}

uint64_t sp_map_abs_to_vaddr(uint64_t abs, uint64_t bias)
{
	return abs - bias;
}

uint64_t sp_map_vaddr_to_abs(uint64_t vaddr, uint64_t bias)
{
	return vaddr + bias;
}
