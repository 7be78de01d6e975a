import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { createApi } from './api/client';
import { API_KEY } from './api/inject';

const app = createApp(App);
app.use(createPinia());
app.provide(API_KEY, createApi());
app.mount('#app');
