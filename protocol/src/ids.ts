// The ids every outbound message frame carries (shared by messages.ts and hook-frames.ts).
import * as z from 'zod/mini';

export const Ids = { uuid: z.string(), session_id: z.string() };
