// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_private.h - our own declarations of the private libibverbs provider
 * interface of rdma-core 44 (symbol version IBVERBS_PRIVATE_34).
 *
 * libibverbs-dev installs only the public verbs.h; the provider interface
 * (rdma-core's driver.h and kern-abi.h) is private and not shipped.  This file
 * declares the subset sroce uses, written from the documented v44.0 layouts
 * (rdma-core v44.0 libibverbs/driver.h).  The layouts are NOT stable
 * under the IBVERBS_PRIVATE_34 name (verbs_context_ops had 73 members in v34,
 * 76 in v40-v50 and more later), so every structure the library reads or
 * writes is pinned by a static_assert below, and the whole set is proven at
 * run time by loading the provider under the installed libibverbs.
 *
 * Rules of this file:
 *   - structures libibverbs reads or writes have exactly the v44.0 layout;
 *   - command buffers are the legacy write() layout: ib_uverbs_cmd_hdr
 *     followed by the core request from <rdma/ib_user_verbs.h>; bytes past
 *     the core structs travel to the kernel as driver udata;
 *   - every ibv_cmd_*() returns 0 or a positive errno value.
 */
#ifndef SROCE_VERBS_PRIVATE_H
#define SROCE_VERBS_PRIVATE_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#ifndef container_of
#define container_of(ptr, type, member)					\
	((type *)((uint8_t *)(ptr) - offsetof(type, member)))
#endif

/* ------------------------------------------------------------------ */
/* Logging (__verbs_log honours VERBS_LOG_LEVEL / VERBS_LOG_FILE)      */
/* ------------------------------------------------------------------ */

enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* Device matching and registration                                    */
/* ------------------------------------------------------------------ */

/*
 * The device libibverbs found in sysfs.  Only its leading fields are
 * declared: their layout is the same in every rdma-core with
 * IBVERBS_PRIVATE_34 (later fields moved between releases), and we read
 * nothing but @ibdev_path, in match_device.
 */
struct verbs_sysfs_list_node {
	struct verbs_sysfs_list_node *next, *prev;
};

struct verbs_sysfs_dev {
	struct verbs_sysfs_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	/* more fields follow; never allocated or copied by us */
};

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/*
 * The library writes @ops, @refcount, @entry and @sysfs after alloc_device()
 * returns: the provider must allocate the full size.
 */
struct verbs_device {
	struct ibv_device device;	/* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct {
		void *next;
		void *prev;
	} entry;			/* ccan struct list_node */
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

void verbs_register_driver_34(const struct verbs_device_ops *ops);

/* ------------------------------------------------------------------ */
/* Objects the library reads or writes                                 */
/* ------------------------------------------------------------------ */

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

/*
 * An XRC domain (ibv_open_xrcd): libibverbs' ibv_cmd_open_xrcd() fills in
 * @handle, the kernel's, and sets VERBS_XRCD_HANDLE in @comp_mask when the
 * structure it is given is large enough to hold it.
 */
enum {
	VERBS_XRCD_HANDLE = 1 << 0,
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;		/* VERBS_XRCD_* */
	uint32_t handle;
};

/*
 * An SRQ created by ibv_cmd_create_srq_ex(): the library records its type
 * and, for an XRC SRQ, its domain, its CQ and its number (@srq_num, the
 * kernel's srqn, which ibv_get_srq_num() returns).  ibv_cmd_create_srq()
 * (the basic ibv_create_srq) writes @srq only.
 */
struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/*
 * verbs_qp.comp_mask bits.  ibv_qp_to_qp_ex() returns &qp_ex only when
 * VERBS_QP_EX is set: the provider sets it on QPs whose ibv_wr_* members
 * it filled in.
 */
enum {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;		/* VERBS_QP_* */
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* ------------------------------------------------------------------ */
/* Context operations: 76 pointers, alphabetical, exactly as v44.0      */
/* ------------------------------------------------------------------ */

struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
							  struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

#define SROCE_VERBS_CONTEXT_OPS_COUNT	76

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* ------------------------------------------------------------------ */
/* Legacy command buffers: header + core request                       */
/* ------------------------------------------------------------------ */

#define SROCE_DECLARE_CMD(name, kabi)					\
	struct name {							\
		struct ib_uverbs_cmd_hdr hdr;				\
		struct kabi core_payload;				\
	};								\
	static_assert(sizeof(struct name) ==				\
		      sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct kabi), \
		      "padding in " #name)

SROCE_DECLARE_CMD(ibv_get_context, ib_uverbs_get_context);
SROCE_DECLARE_CMD(ibv_query_port, ib_uverbs_query_port);
SROCE_DECLARE_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
SROCE_DECLARE_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
SROCE_DECLARE_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);
SROCE_DECLARE_CMD(ibv_create_cq, ib_uverbs_create_cq);
SROCE_DECLARE_CMD(ibv_resize_cq, ib_uverbs_resize_cq);
SROCE_DECLARE_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr);
SROCE_DECLARE_CMD(ibv_create_qp, ib_uverbs_create_qp);
SROCE_DECLARE_CMD(ibv_query_qp, ib_uverbs_query_qp);
SROCE_DECLARE_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
SROCE_DECLARE_CMD(ibv_post_send, ib_uverbs_post_send);
SROCE_DECLARE_CMD(ibv_create_srq, ib_uverbs_create_srq);
SROCE_DECLARE_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
SROCE_DECLARE_CMD(ibv_query_srq, ib_uverbs_query_srq);
SROCE_DECLARE_CMD(ibv_create_xsrq, ib_uverbs_create_xsrq);
SROCE_DECLARE_CMD(ibv_open_xrcd, ib_uverbs_open_xrcd);
SROCE_DECLARE_CMD(ibv_open_qp, ib_uverbs_open_qp);

/* ------------------------------------------------------------------ */
/* ibv_cmd_*() we call (all return 0 or a positive errno)              */
/* ------------------------------------------------------------------ */

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr,
		      struct ibv_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
/*
 * For ibv_create_qp_ex(): @attr_ex->comp_mask within IBV_QP_INIT_ATTR_PD,
 * _XRCD and _SEND_OPS_FLAGS (else EINVAL); sets @qp's comp_mask and xrcd.
 */
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
/* @vqp_sz: bytes of @qp the library may write (the xrcd member included) */
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
/* @vxrcd_size: bytes of @xrcd the library may write (the handle included) */
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

/* ------------------------------------------------------------------ */
/* Layout checks against the v44.0 facts                               */
/* ------------------------------------------------------------------ */

static_assert(sizeof(struct verbs_context_ops) ==
	      SROCE_VERBS_CONTEXT_OPS_COUNT * sizeof(void (*)(void)),
	      "verbs_context_ops must hold exactly the 76 v44.0 members");
static_assert(offsetof(struct verbs_context_ops, unimport_pd) ==
	      (SROCE_VERBS_CONTEXT_OPS_COUNT - 1) * sizeof(void (*)(void)),
	      "unimport_pd must be the last verbs_context_ops member");
static_assert(sizeof(struct verbs_context) == 648,
	      "public struct verbs_context differs from rdma-core 44");
static_assert(offsetof(struct verbs_context, context) ==
	      sizeof(struct verbs_context) - sizeof(struct ibv_context),
	      "verbs_context must end with struct ibv_context");
/* name, two u32 ABI bounds sharing one slot, seven pointers */
static_assert(sizeof(struct verbs_device_ops) == 9 * sizeof(void *),
	      "verbs_device_ops layout");
static_assert(offsetof(struct verbs_device_ops, match_table) ==
	      2 * sizeof(void *), "verbs_device_ops layout");
static_assert(offsetof(struct verbs_device_ops, uninit_device) ==
	      8 * sizeof(void *), "verbs_device_ops layout");
static_assert(offsetof(struct verbs_sysfs_dev, ibdev_path) == 176,
	      "verbs_sysfs_dev layout");
static_assert(sizeof(struct verbs_match_ent) == 24,
	      "verbs_match_ent layout");
static_assert(offsetof(struct verbs_match_ent, kind) == 20,
	      "verbs_match_ent layout");
static_assert(offsetof(struct verbs_device, ops) ==
	      sizeof(struct ibv_device), "verbs_device layout");
static_assert(offsetof(struct verbs_device, core_support) ==
	      sizeof(struct ibv_device) + 40, "verbs_device layout");
static_assert(sizeof(struct verbs_mr) == sizeof(struct ibv_mr) + 8,
	      "verbs_mr layout");
static_assert(offsetof(struct verbs_qp, comp_mask) ==
	      sizeof(struct ibv_qp_ex), "verbs_qp layout");
static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "ibv_qp_ex layout");
static_assert(sizeof(struct verbs_cq) == sizeof(struct ibv_cq_ex),
	      "verbs_cq layout");
static_assert(offsetof(struct verbs_xrcd, handle) ==
	      sizeof(struct ibv_xrcd) + 4, "verbs_xrcd layout");
static_assert(offsetof(struct verbs_srq, srq_type) == sizeof(struct ibv_srq) &&
	      offsetof(struct verbs_srq, xrcd) == sizeof(struct ibv_srq) + 8 &&
	      offsetof(struct verbs_srq, srq_num) ==
	      sizeof(struct ibv_srq) + 24, "verbs_srq layout");
static_assert(offsetof(struct verbs_qp, xrcd) ==
	      sizeof(struct ibv_qp_ex) + 8, "verbs_qp layout");
static_assert(sizeof(struct ibv_get_context) == 16, "get_context cmd");
static_assert(sizeof(struct ibv_query_port) == 24, "query_port cmd");
static_assert(sizeof(struct ibv_create_cq) == 40, "create_cq cmd");
static_assert(sizeof(struct ibv_create_qp) == 64, "create_qp cmd");
static_assert(sizeof(struct ibv_post_send) == 32, "post_send cmd");
static_assert(sizeof(struct ibv_create_xsrq) == 56, "create_xsrq cmd");
static_assert(sizeof(struct ibv_open_xrcd) == 24, "open_xrcd cmd");
static_assert(sizeof(struct ibv_open_qp) == 40, "open_qp cmd");

#endif /* SROCE_VERBS_PRIVATE_H */
