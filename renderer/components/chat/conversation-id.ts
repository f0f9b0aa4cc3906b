/** The conversation a message is shown in: a tool card's screen sends its messages there (as the server's words). */
import { createContext } from 'react';

export const ConversationIdContext = createContext<string | undefined>(undefined);
