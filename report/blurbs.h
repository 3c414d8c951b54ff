/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gprof's explanatory texts (private to report/). */
#ifndef SYMPROF_REPORT_BLURBS_H
#define SYMPROF_REPORT_BLURBS_H

extern const char sp_blurb_flat[];
extern const char sp_blurb_graph_gnu[];
extern const char sp_blurb_graph_bsd[];

#endif
