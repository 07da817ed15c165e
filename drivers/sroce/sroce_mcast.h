/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_mcast.h - UD multicast groups (sroce_mcast.c).
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;
struct sk_buff;

int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sroce_mcast_qp_leave_all(struct sroce_qp *qp);
void sroce_mcast_rcv(struct sroce_dev *dev, struct sk_buff *skb);
void sroce_mcast_dev_init(struct sroce_dev *dev);

#endif /* SROCE_MCAST_H */
