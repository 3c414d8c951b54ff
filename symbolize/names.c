/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof's naming rule: the one name each function gets in every report
 * of every format (docs/formats.md, "Function names"). sp_name_frame() is
 * the rule; everything else here builds a name from DWARF for the rare
 * function that has no linkage name.
 *
 *  1. A frame that is a function itself (the function the address is in,
 *     not an inlined instance) is named by its ELF symbol, as `nm -C`,
 *     igprof-analyse -g and google-pprof name it: the nearest function
 *     symbol at or below the address in its section, clone suffixes and
 *     `.cold` included; of aliases, the one DWARF's linkage name is, else
 *     bfd's choice. When DWARF says the symbol starts another function (a
 *     local symbol stripped), the function is named as an inlined one
 *     would be.
 *  2. An inlined frame is named by the linkage name of its abstract origin
 *     (DW_AT_linkage_name, followed through DW_AT_abstract_origin and
 *     DW_AT_specification), demangled for display: what
 *     `addr2line -f -i -C` prints for it. In C-like languages DW_AT_name
 *     is the linkage name.
 *  3. A function without a linkage name (GCC leaves it out for template
 *     instances of local types, such as std::sort's helpers for a lambda,
 *     and for extern "C" and main) is named by the ELF symbol of an
 *     out-of-line instance of it when there is one (its clone suffix
 *     dropped), so that it has one name inlined or not; else by the
 *     qualified name built from its DIE's parents (namespaces, classes,
 *     the function around a local class, "{lambda(int)#1}" for a closure
 *     type) with its template arguments, return type (templates) and
 *     parameter list, spelt as the demangler spells a linkage name
 *     ("char const*", "unsigned long", "> >"); an external function at
 *     file scope that is no template (extern "C", main) by its DW_AT_name.
 *
 * Names are raw: a linkage name (mangled) is demangled when printed, a
 * built name is printed as it is and is no linkage name (JSON's "mangled"
 * is null). Rules 2 and 3 are computed once per function (the name is
 * kept in its origin); rule 1 is a symbol lookup per address, which the
 * symbolizer caches.
 *
 * Building a qualified name needs the parents of DIEs, which libdw does not
 * keep: they are found going down from the unit, each level's children
 * listed once (find_path()).
 */
#include "dwarf-funcs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/hashmap.h"
#include "symprof/strtab.h"
#include "symprof/symbolize.h"

#define MAX_DEPTH 24 /* scopes and type nesting followed at most */

/* A DIE's parent, once found. */
struct parent {
	Dwarf *dw;
	Dwarf_Off off, up; /* up: 0 under the unit DIE */
};

/* The children of a DIE (or unit), by offset, once listed. */
struct kids {
	Dwarf *dw;
	Dwarf_Off of;
	Dwarf_Off *off;
	size_t n;
};

struct sp_dwnames {
	struct parent *parents;
	size_t nparents, alloc;
	struct sp_pairmap index; /* (off, dw) -> parents[] */
	struct kids *kids;
	size_t nkids, kids_alloc;
	struct sp_pairmap kids_index; /* (of, dw) -> kids[] */
};

static void parent_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_dwnames *n = ctx;

	*k1 = n->parents[i].off;
	*k2 = (uint64_t)(uintptr_t)n->parents[i].dw;
}

static void kids_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_dwnames *n = ctx;

	*k1 = n->kids[i].of;
	*k2 = (uint64_t)(uintptr_t)n->kids[i].dw;
}

static struct sp_dwnames *dwnames_new(void)
{
	struct sp_dwnames *n = sp_xcalloc(1, sizeof(*n));

	sp_pairmap_init(&n->index, parent_key, n);
	sp_pairmap_init(&n->kids_index, kids_key, n);
	return n;
}

void sp_dwnames_free(struct sp_dwnames *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		free(n->kids[i].off);
	free(n->kids);
	sp_pairmap_release(&n->kids_index);
	sp_pairmap_release(&n->index);
	free(n->parents);
	free(n);
}

/* ---- parents ---- */

/* The next sibling, only forwards (a DW_AT_sibling pointing back in
 * corrupt DWARF must not loop). */
static int next_sibling(Dwarf_Die *die)
{
	Dwarf_Die next;

	if (dwarf_siblingof(die, &next) != 0 || dwarf_dieoffset(&next) <= dwarf_dieoffset(die))
		return 0;
	*die = next;
	return 1;
}

static void remember(struct sp_dwnames *n, Dwarf *dw, Dwarf_Off off, Dwarf_Off up)
{
	uint32_t i = sp_pairmap_put(&n->index, off, (uint64_t)(uintptr_t)dw, (uint32_t)n->nparents);

	if (i != n->nparents)
		return;
	SP_ALLOC_GROW(n->parents, n->nparents + 1, n->alloc);
	n->parents[i].dw = dw;
	n->parents[i].off = off;
	n->parents[i].up = up;
	n->nparents++;
}

/* The children of `die` in offset order, listed on first use (siblings
 * are jumps with DW_AT_sibling). */
static const struct kids *kids_of(struct sp_dwnames *n, Dwarf *dw, Dwarf_Die *die)
{
	Dwarf_Off of = dwarf_dieoffset(die);
	uint32_t i =
		sp_pairmap_put(&n->kids_index, of, (uint64_t)(uintptr_t)dw, (uint32_t)n->nkids);
	struct kids *k;
	Dwarf_Die c;
	size_t alloc = 0;

	if (i != n->nkids)
		return &n->kids[i];
	SP_ALLOC_GROW(n->kids, n->nkids + 1, n->kids_alloc);
	k = &n->kids[n->nkids++];
	memset(k, 0, sizeof(*k));
	k->dw = dw;
	k->of = of;
	if (dwarf_child(die, &c) != 0)
		return k;
	do {
		SP_ALLOC_GROW(k->off, k->n + 1, alloc);
		k->off[k->n++] = dwarf_dieoffset(&c);
	} while (next_sibling(&c));
	return k;
}

/*
 * Finds the DIEs above die by going down from its unit, at each level to
 * the child whose subtree holds it (the last one starting at or before
 * it), and remembers the parent of each DIE on the way. Each level's
 * children are listed once, so a name costs the depth of its DIE, not the
 * size of its unit. 0 if die is not found.
 */
static int find_path(struct sp_dwnames *n, Dwarf_Die *die)
{
	Dwarf *dw = dwarf_cu_getdwarf(die->cu);
	Dwarf_Off off = dwarf_dieoffset(die), up = 0;
	Dwarf_Die level;
	int depth;

	if (!dwarf_diecu(die, &level, NULL, NULL))
		return 0;
	for (depth = 0; depth < 1024; depth++) {
		const struct kids *k = kids_of(n, dw, &level);
		size_t lo = 0, hi = k->n;
		Dwarf_Off at;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (k->off[mid] <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			return 0;
		at = k->off[lo - 1];
		remember(n, dw, at, up);
		if (at == off)
			return 1;
		if (!dwarf_offdie(dw, at, &level))
			return 0;
		up = at;
	}
	return 0;
}

/* The parent of die (not the unit DIE): 1, or 0 if there is none. */
static int parent_of(struct sp_dwnames *n, Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf *dw = die->cu ? dwarf_cu_getdwarf(die->cu) : NULL;
	Dwarf_Off off = dwarf_dieoffset(die);
	uint32_t i;

	if (!dw)
		return 0;
	i = sp_pairmap_get(&n->index, off, (uint64_t)(uintptr_t)dw);
	if (i == UINT32_MAX) {
		if (!find_path(n, die))
			remember(n, dw, off, 0);
		i = sp_pairmap_get(&n->index, off, (uint64_t)(uintptr_t)dw);
	}
	return n->parents[i].up && dwarf_offdie(dw, n->parents[i].up, out) != NULL;
}

/* ---- names of scopes and types, spelt as the demangler spells them ---- */

static int ref_attr(Dwarf_Die *die, unsigned name, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr(die, name, &a) && dwarf_formref_die(&a, out) != NULL;
}

/* The demangler's spelling of GCC's base type names. */
static const char *base_name(const char *dw)
{
	static const char *const map[][2] = {
		{"long int", "long"},
		{"long unsigned int", "unsigned long"},
		{"short int", "short"},
		{"short unsigned int", "unsigned short"},
		{"long long int", "long long"},
		{"long long unsigned int", "unsigned long long"},
		{"__int128 unsigned", "unsigned __int128"},
		{"_Bool", "bool"},
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(dw, map[i][0]))
			return map[i][1];
	return dw;
}

/* GCC's spelling of a name with template arguments, the base types in it
 * respelt as the demangler spells them ("allocator<long int>" becomes
 * "allocator<long>"): for the classes whose template parameters DWARF
 * does not list. */
static void respell(const char *name, struct sp_buf *b)
{
	static const char *const words[][2] = {
		{"long long unsigned int", "unsigned long long"},
		{"long long int", "long long"},
		{"long unsigned int", "unsigned long"},
		{"short unsigned int", "unsigned short"},
		{"long int", "long"},
		{"short int", "short"},
		{"__int128 unsigned", "unsigned __int128"},
	};
	const char *p = name;

	while (*p) {
		size_t i, n = 0;
		int word_start = p == name || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');

		for (i = 0; word_start && i < sizeof(words) / sizeof(words[0]); i++) {
			n = strlen(words[i][0]);
			if (!strncmp(p, words[i][0], n) &&
			    !(isalnum((unsigned char)p[n]) || p[n] == '_'))
				break;
		}
		if (word_start && i < sizeof(words) / sizeof(words[0])) {
			sp_buf_addstr(b, words[i][1]);
			p += n;
		} else {
			sp_buf_addch(b, *p++);
		}
	}
}

/* '>' closing a template argument list: "> >" as the demangler writes it. */
static void close_angle(struct sp_buf *b)
{
	if (b->len && b->buf[b->len - 1] == '>')
		sp_buf_addch(b, ' ');
	sp_buf_addch(b, '>');
}

static void type_name(struct sp_dwnames *n, Dwarf_Die *type, struct sp_buf *b, int depth);
static void scope_prefix(struct sp_dwnames *n, Dwarf_Die *die, struct sp_buf *b, int depth);
static int function_name(struct sp_dwnames *n, Dwarf_Die *die, struct sp_buf *b, int depth);

/* The type of die (DW_AT_type), "void" when it has none. */
static void type_of(struct sp_dwnames *n, Dwarf_Die *die, struct sp_buf *b, int depth)
{
	Dwarf_Die t;

	if (ref_attr(die, DW_AT_type, &t))
		type_name(n, &t, b, depth + 1);
	else
		sp_buf_addstr(b, "void");
}

/* The type under const, volatile and typedefs: 0 if there is none. */
static int peel_cv(Dwarf_Die *t)
{
	int depth;

	for (depth = 0; depth < MAX_DEPTH; depth++) {
		int tag = dwarf_tag(t);

		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_typedef)
			return 1;
		if (!ref_attr(t, DW_AT_type, t))
			return 0;
	}
	return 0;
}

/* "(T1, T2, ...)" from fn's parameter DIEs (parameter packs included);
 * *const_this: the artificial first parameter points to a const object. */
static void params(struct sp_dwnames *n, Dwarf_Die *fn, struct sp_buf *b, int depth,
		   int *const_this)
{
	Dwarf_Die c, pc, ptr, obj;
	int first = 1;

	sp_buf_addch(b, '(');
	if (dwarf_child(fn, &c) == 0) {
		do {
			int tag = dwarf_tag(&c);
			Dwarf_Attribute a;

			if (tag == DW_TAG_formal_parameter &&
			    dwarf_attr(&c, DW_AT_artificial, &a)) {
				if (const_this && first && ref_attr(&c, DW_AT_type, &ptr) &&
				    peel_cv(&ptr) && ref_attr(&ptr, DW_AT_type, &obj))
					*const_this = dwarf_tag(&obj) == DW_TAG_const_type;
				continue;
			}
			if (tag == DW_TAG_formal_parameter) {
				sp_buf_addstr(b, first ? "" : ", ");
				type_of(n, &c, b, depth);
				first = 0;
			} else if (tag == DW_TAG_unspecified_parameters) {
				sp_buf_addstr(b, first ? "..." : ", ...");
				first = 0;
			} else if (tag == DW_TAG_GNU_formal_parameter_pack &&
				   dwarf_child(&c, &pc) == 0) {
				do {
					sp_buf_addstr(b, first ? "" : ", ");
					type_of(n, &pc, b, depth);
					first = 0;
				} while (next_sibling(&pc));
			}
		} while (next_sibling(&c));
	}
	sp_buf_addch(b, ')');
}

/* A template value argument as the demangler prints it ("3ul", "true",
 * "(char)65"); 0 if it cannot say. */
static int value_arg(struct sp_dwnames *n, Dwarf_Die *param, struct sp_buf *b, int depth)
{
	static const char *const sfx[][2] = {
		{"int", ""},	     {"unsigned int", "u"},
		{"long", "l"},	     {"unsigned long", "ul"},
		{"long long", "ll"}, {"unsigned long long", "ull"},
	};
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Sword v;
	const char *tn;
	size_t i;

	if (!dwarf_attr(param, DW_AT_const_value, &a) || dwarf_formsdata(&a, &v) != 0 ||
	    !ref_attr(param, DW_AT_type, &t))
		return 0;
	while (dwarf_tag(&t) == DW_TAG_typedef || dwarf_tag(&t) == DW_TAG_const_type)
		if (!ref_attr(&t, DW_AT_type, &t))
			return 0;
	if (dwarf_tag(&t) == DW_TAG_enumeration_type) {
		sp_buf_addch(b, '(');
		type_name(n, &t, b, depth + 1);
		sp_buf_addf(b, ")%lld", (long long)v);
		return 1;
	}
	if (dwarf_tag(&t) != DW_TAG_base_type || !(tn = dwarf_diename(&t)))
		return 0;
	tn = base_name(tn);
	if (!strcmp(tn, "bool")) {
		sp_buf_addstr(b, v ? "true" : "false");
		return 1;
	}
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (!strcmp(tn, sfx[i][0])) {
			sp_buf_addf(b, "%lld%s", (long long)v, sfx[i][1]);
			return 1;
		}
	sp_buf_addf(b, "(%s)%lld", tn, (long long)v);
	return 1;
}

/* One template parameter DIE (packs expand); 0 if it cannot be printed. */
static int template_arg(struct sp_dwnames *n, Dwarf_Die *p, struct sp_buf *b, int depth, int *first)
{
	Dwarf_Die c;
	int tag = dwarf_tag(p);

	if (tag == DW_TAG_GNU_template_parameter_pack) {
		if (dwarf_child(p, &c) == 0)
			do {
				if (!template_arg(n, &c, b, depth, first))
					return 0;
			} while (next_sibling(&c));
		return 1;
	}
	if (tag != DW_TAG_template_type_parameter && tag != DW_TAG_template_value_parameter)
		return 1;
	sp_buf_addstr(b, *first ? "" : ", ");
	*first = 0;
	if (tag == DW_TAG_template_type_parameter) {
		type_of(n, p, b, depth);
		return 1;
	}
	return value_arg(n, p, b, depth);
}

static int is_template_param(int tag)
{
	return tag == DW_TAG_template_type_parameter || tag == DW_TAG_template_value_parameter ||
	       tag == DW_TAG_GNU_template_parameter_pack ||
	       tag == DW_TAG_GNU_template_template_param;
}

/*
 * `name` (a class or function DW_AT_name, "vector<long int>") with its
 * template arguments printed from die's template parameters: GCC's
 * spelling of them in the name is not the demangler's. The name as it is
 * when die has none, or when one cannot be printed. Returns 1 if die is a
 * template instance.
 */
static int templated(struct sp_dwnames *n, Dwarf_Die *die, const char *name, struct sp_buf *b,
		     int depth)
{
	size_t start = b->len, len = strlen(name), k;
	int first = 1, nest = 0, any = 0;
	Dwarf_Die c;

	/* the '<' that opens the arguments: matched from the final '>' */
	for (k = len; k > 0 && len && name[len - 1] == '>'; k--) {
		nest += name[k - 1] == '>' ? 1 : name[k - 1] == '<' ? -1 : 0;
		if (!nest)
			break;
	}
	if (dwarf_child(die, &c) == 0)
		do
			any |= is_template_param(dwarf_tag(&c));
		while (!any && next_sibling(&c));
	if (!any || !len || name[len - 1] != '>' || nest || k <= 1) {
		respell(name, b);
		return any;
	}
	sp_buf_add(b, name, k - 1);
	sp_buf_addch(b, '<');
	dwarf_child(die, &c);
	do {
		if (dwarf_tag(&c) == DW_TAG_GNU_template_template_param ||
		    !template_arg(n, &c, b, depth + 1, &first)) {
			sp_buf_setlen(b, start);
			respell(name, b);
			return 1;
		}
	} while (next_sibling(&c));
	close_angle(b);
	return 1;
}

/* The member function "operator()" of a closure type, if die is one (an
 * unnamed class with a "<lambda>" constructor). */
static int closure_call(Dwarf_Die *die, Dwarf_Die *call)
{
	Dwarf_Die c;
	const char *name;
	int lambda = 0, found = 0;

	if (dwarf_diename(die) || dwarf_child(die, &c) != 0)
		return 0;
	do {
		if (dwarf_tag(&c) != DW_TAG_subprogram || !(name = dwarf_diename(&c)))
			continue;
		if (!strcmp(name, "<lambda>"))
			lambda = 1;
		else if (!strcmp(name, "operator()") && !found) {
			*call = c;
			found = 1;
		}
	} while (next_sibling(&c));
	return lambda && found;
}

/* The nearest function or namespace around a DIE: the context whose
 * lambdas are numbered together; 0 if there is none (the unit). */
static int lambda_context(struct sp_dwnames *n, Dwarf_Die *die, Dwarf_Die *ctx)
{
	Dwarf_Die up = *die;
	int depth;

	for (depth = 0; depth < MAX_DEPTH && parent_of(n, &up, &up); depth++)
		if (dwarf_tag(&up) == DW_TAG_subprogram || dwarf_tag(&up) == DW_TAG_namespace) {
			*ctx = up;
			return 1;
		}
	return 0;
}

struct lambda_count {
	Dwarf_Off off; /* the closure type being numbered */
	const char *sig;
	unsigned number;
	struct sp_buf other;
};

/* Counts the closure types with signature c->sig that come before c->off
 * under die, not looking into nested functions (another context). */
static void count_lambdas(struct sp_dwnames *n, Dwarf_Die *die, struct lambda_count *c, int depth)
{
	Dwarf_Die d, call;

	if (depth > MAX_DEPTH || dwarf_child(die, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);

		if (dwarf_dieoffset(&d) >= c->off)
			return;
		if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) &&
		    closure_call(&d, &call)) {
			sp_buf_reset(&c->other);
			params(n, &call, &c->other, depth + 1, NULL);
			c->number += !strcmp(c->other.buf, c->sig);
		} else if (tag == DW_TAG_lexical_block) {
			count_lambdas(n, &d, c, depth + 1);
		}
	} while (next_sibling(&d));
}

/* "{lambda(long, long)#2}": the second closure type of its context with
 * that signature, in DIE order (the Itanium ABI's numbering). */
static void lambda_name(struct sp_dwnames *n, Dwarf_Die *die, Dwarf_Die *call, struct sp_buf *b,
			int depth)
{
	struct sp_buf sig = SP_BUF_INIT;
	struct lambda_count c;
	Dwarf_Die ctx;

	params(n, call, &sig, depth + 1, NULL);
	memset(&c, 0, sizeof(c));
	c.off = dwarf_dieoffset(die);
	c.sig = sig.buf;
	c.number = 1;
	sp_buf_init(&c.other, 64);
	if (lambda_context(n, die, &ctx))
		count_lambdas(n, &ctx, &c, depth + 1);
	sp_buf_addf(b, "{lambda%s#%u}", sig.buf, c.number);
	sp_buf_release(&sig);
	sp_buf_release(&c.other);
}

/* A class, struct, union, enum or namespace: its scopes and its name. */
static void named_scope(struct sp_dwnames *n, Dwarf_Die *die, struct sp_buf *b, int depth)
{
	const char *name = dwarf_diename(die);
	Dwarf_Die spec, call;

	if (ref_attr(die, DW_AT_specification, &spec))
		die = &spec;
	scope_prefix(n, die, b, depth + 1);
	if (name)
		templated(n, die, name, b, depth);
	else if (dwarf_tag(die) == DW_TAG_namespace)
		sp_buf_addstr(b, "(anonymous namespace)");
	else if (closure_call(die, &call))
		lambda_name(n, die, &call, b, depth);
	else
		sp_buf_addstr(b, "{unnamed type#1}");
}

static void type_name(struct sp_dwnames *n, Dwarf_Die *type, struct sp_buf *b, int depth)
{
	const char *name = dwarf_diename(type);
	int tag = dwarf_tag(type);
	Dwarf_Die t;

	if (depth > MAX_DEPTH) {
		sp_buf_addstr(b, "...");
		return;
	}
	switch (tag) {
	case DW_TAG_base_type:
		sp_buf_addstr(b, name ? base_name(name) : "?");
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *op = tag == DW_TAG_pointer_type	? "*"
				 : tag == DW_TAG_reference_type ? "&"
								: "&&";

		if (ref_attr(type, DW_AT_type, &t) && dwarf_tag(&t) == DW_TAG_subroutine_type) {
			type_of(n, &t, b, depth);
			sp_buf_addf(b, " (%s)", op);
			params(n, &t, b, depth + 1, NULL);
			return;
		}
		type_of(n, type, b, depth);
		sp_buf_addstr(b, op);
		return;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		type_of(n, type, b, depth);
		sp_buf_addstr(b, tag == DW_TAG_const_type ? " const" : " volatile");
		return;
	case DW_TAG_typedef:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		/* mangled names spell the type a typedef stands for */
		type_of(n, type, b, depth);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		named_scope(n, type, b, depth);
		return;
	case DW_TAG_array_type:
		type_of(n, type, b, depth);
		sp_buf_addstr(b, " []");
		return;
	case DW_TAG_subroutine_type:
		type_of(n, type, b, depth);
		sp_buf_addch(b, ' ');
		params(n, type, b, depth + 1, NULL);
		return;
	default:
		sp_buf_addstr(b, name ? name : "?");
		return;
	}
}

/* "ns::Class::" for the scopes around die (nothing at file scope). */
static void scope_prefix(struct sp_dwnames *n, Dwarf_Die *die, struct sp_buf *b, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die up;
	const char *name;
	char *dm;

	if (depth > MAX_DEPTH || !parent_of(n, die, &up))
		return;
	switch (dwarf_tag(&up)) {
	case DW_TAG_namespace:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_interface_type:
		named_scope(n, &up, b, depth);
		sp_buf_addstr(b, "::");
		return;
	case DW_TAG_subprogram:
		/* a local entity: "f(int)::", as the demangler says */
		if ((dwarf_attr_integrate(&up, DW_AT_linkage_name, &a) ||
		     dwarf_attr_integrate(&up, DW_AT_MIPS_linkage_name, &a)) &&
		    (name = dwarf_formstring(&a)) && (dm = sp_demangle(name, 0))) {
			sp_buf_addf(b, "%s::", dm);
			free(dm);
		} else if (function_name(n, &up, b, depth + 1)) {
			sp_buf_addstr(b, "::");
		}
		return;
	default:
		/* lexical blocks and the like: the scope around them */
		scope_prefix(n, &up, b, depth + 1);
		return;
	}
}

/* A constructor, destructor or conversion: the demangler prints no
 * return type for them. */
static int no_return_type(struct sp_dwnames *n, Dwarf_Die *die, const char *name)
{
	Dwarf_Die up;
	const char *cls;
	size_t len = strcspn(name, "<");

	if (name[0] == '~' || (!strncmp(name, "operator ", 9) && name[9] != '\0'))
		return 1;
	if (!parent_of(n, die, &up) || !(cls = dwarf_diename(&up)))
		return 0;
	return strcspn(cls, "<") == len && !strncmp(cls, name, len);
}

/*
 * The name of function `die` (the DIE with its DW_AT_name), spelt as the
 * demangler spells a linkage name: [return type ]scopes::name[<args>](
 * parameters)[ const], the return type for templates only; an external
 * function at file scope other than a template by its DW_AT_name alone
 * (extern "C", main). 0 if it has no name.
 */
static int function_name(struct sp_dwnames *n, Dwarf_Die *die, struct sp_buf *b, int depth)
{
	const char *name = dwarf_diename(die);
	struct sp_buf scope = SP_BUF_INIT, rest = SP_BUF_INIT;
	int const_this = 0, tmpl;
	Dwarf_Attribute a;

	if (!name || depth > MAX_DEPTH)
		return 0;
	scope_prefix(n, die, &scope, depth);
	tmpl = templated(n, die, name, &rest, depth);
	if (!scope.len && !tmpl && dwarf_attr_integrate(die, DW_AT_external, &a)) {
		sp_buf_addstr(b, name);
		sp_buf_release(&scope);
		sp_buf_release(&rest);
		return 1;
	}
	if (tmpl && !no_return_type(n, die, name)) {
		type_of(n, die, b, depth);
		sp_buf_addch(b, ' ');
	}
	sp_buf_addstr(b, scope.buf ? scope.buf : "");
	sp_buf_addstr(b, rest.buf ? rest.buf : "");
	params(n, die, b, depth + 1, &const_this);
	if (const_this)
		sp_buf_addstr(b, " const");
	sp_buf_release(&scope);
	sp_buf_release(&rest);
	return 1;
}

/* Rule 3: the name of a function with no linkage name, from its DIE. */
static const char *built_name(struct sp_dwfuncs *f, const struct sp_dworigin *o)
{
	struct sp_dwnames **np = sp_dwfuncs_names(f);
	Dwarf_Die die = o->die;
	struct sp_buf b = SP_BUF_INIT;
	const char *out = NULL;

	if (!*np)
		*np = dwnames_new();
	if (function_name(*np, &die, &b, 0))
		out = sp_strtab_intern(sp_dwfuncs_strs(f), b.buf);
	sp_buf_release(&b);
	return out;
}

/* Rule 3: an out-of-line instance's symbol, else the built name. */
static void name_origin(struct sp_dwfuncs *f, struct sp_dworigin *o)
{
	uint64_t at = 0;
	const char *sym = o->outline ? sp_dwfuncs_symbol_addr(f, o->outline, &at) : NULL;
	size_t base;

	if (sym && at == o->outline) {
		if (sp_is_clone_name(sym, &base) && base)
			sym = sp_strtab_intern_n(sp_dwfuncs_strs(f), sym, base);
		o->name = sym;
		o->linkage = 1;
		return;
	}
	o->name = built_name(f, o);
	o->linkage = 0;
}

const char *sp_name_frame(struct sp_dwfuncs *f, const struct sp_inline_frame *fr, int function,
			  uint64_t vaddr, int *linkage)
{
	struct sp_dworigin *o;
	const char *name, *sym;
	int is_linkage, inlined;
	uint64_t at = 0;

	*linkage = 0;
	if (function) {
		/* rule 1: the symbol, unless DWARF says it starts another
		 * function; of aliases, the one DWARF names */
		sym = sp_dwfuncs_symbol_addr(f, vaddr, &at);
		if (sym && (!fr || sp_dwfuncs_outer_at(f, at) == fr->fn)) {
			*linkage = 1;
			name = fr ? sp_dwfuncs_fn_name(f, fr->fn, &is_linkage, &inlined) : NULL;
			if (name && is_linkage && strcmp(name, sym) &&
			    sp_dwfuncs_has_alias(f, at, name))
				return name;
			return sym;
		}
	}
	if (!fr)
		return NULL;
	name = sp_dwfuncs_fn_name(f, fr->fn, &is_linkage, &inlined);
	if (!name || is_linkage) {
		/* rule 2 */
		*linkage = name != NULL;
		return name;
	}
	if (!(o = sp_dwfuncs_origin(f, fr->fn)))
		return name;
	if (!o->name)
		name_origin(f, o);
	if (!o->name)
		return name;
	*linkage = o->linkage;
	return o->name;
}

int sp_name_is_linkage(const char *name)
{
	return name && name[0] && !strpbrk(name, " ()<>,") && !strstr(name, "::");
}
