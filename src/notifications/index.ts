/**
 * Notifications (NOTIFY_WEBHOOK_URL): the delivery loop on its own timer, the POST, its
 * signature, the retry policy and the verdict watch. The only door into src/notifications/ for the
 * other folders: the daemon builds the service with `createNotifications`; the outbox itself is
 * state/notify/, and each notification's payload is built where its fact is stored
 * (domain/notification.ts).
 */

export {
  createNotifications,
  type NotificationEdges,
  type NotificationSettings,
  type Notifications,
} from './notificationsService.ts';
export type { VerdictNow } from './verdictWatch.ts';
