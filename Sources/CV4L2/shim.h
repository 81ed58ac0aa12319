#ifndef EDGE_CV4L2_SHIM_H
#define EDGE_CV4L2_SHIM_H
#include <fcntl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/mman.h>

/// v4l2_open is variadic (the optional mode); Swift cannot call C variadic functions.
static inline int edge_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }

/// v4l2_ioctl is variadic; Swift cannot call C variadic functions.
static inline int edge_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

/// The VIDIOC_* request numbers are _IOWR(...) macros with sizeof; Swift cannot expand them.
static inline unsigned long edge_vidioc_querycap(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long edge_vidioc_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long edge_vidioc_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long edge_vidioc_g_fmt(void) { return VIDIOC_G_FMT; }
static inline unsigned long edge_vidioc_s_fmt(void) { return VIDIOC_S_FMT; }
static inline unsigned long edge_vidioc_reqbufs(void) { return VIDIOC_REQBUFS; }
static inline unsigned long edge_vidioc_querybuf(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long edge_vidioc_qbuf(void) { return VIDIOC_QBUF; }
static inline unsigned long edge_vidioc_dqbuf(void) { return VIDIOC_DQBUF; }
static inline unsigned long edge_vidioc_streamon(void) { return VIDIOC_STREAMON; }
static inline unsigned long edge_vidioc_streamoff(void) { return VIDIOC_STREAMOFF; }
static inline unsigned long edge_vidioc_queryctrl(void) { return VIDIOC_QUERYCTRL; }
static inline unsigned long edge_vidioc_s_ctrl(void) { return VIDIOC_S_CTRL; }
static inline unsigned long edge_vidioc_g_ctrl(void) { return VIDIOC_G_CTRL; }

#endif
